"""A small MCP server built on the official Python SDK, used as a real peer by the tests.

Run with the venv that setup.sh creates (tests/peers/.venv):

    .venv/bin/python py_server.py --transport stdio
    .venv/bin/python py_server.py --transport streamable-http --port 8931 [--json-response] [--stateless]
    .venv/bin/python py_server.py --transport sse --port 8931
    .venv/bin/python py_server.py --transport streamable-http --port 8931 --gzip [--json-response]
        (mcp >= 2: the app behind Starlette's GZipMiddleware, every reply gzip-compressed,
        event streams too)

HTTP transports bind 127.0.0.1 only. Endpoints:
    streamable-http  POST/GET/DELETE http://127.0.0.1:<port>/mcp
    sse              GET http://127.0.0.1:<port>/sse, then POST to the `endpoint` event's URL

Surface (kept small and stable; tests rely on these names):
    tools      echo(text) -> text
               add(a, b) -> a + b (integers)
               progress(steps=3, delay_ms=10) -> reports `steps` progress notifications
                   (only when the request carries a progressToken), then "done <steps>"
               fail(message="boom") -> a tool result with isError: true carrying `message`
               sleep(ms) -> waits `ms` milliseconds (capped at 60000), then "slept <ms>";
                   for cancellation and timeout tests
               elicit_name() -> asks for a `name` with elicitation/create (a server request,
                   which only the handshake era can carry) and answers "hello <name>", or the
                   action ("decline", "cancel") when the form was not accepted
    resources  peer://static/greeting (text/plain "hello from py_server")
               peer://echo/{text} (template; reads back `text`)
               files.read_text(path, max_bytes=None, encoding=None) -> "read <path> ..." (a
                   dotted name, Optional[...] arguments: anyOf with null in the schema)
               describe_person(person, note=None) -> "<name> lives in <city> (<n> friends)";
                   nested and recursive models: a deep $defs/$ref schema
    prompts    greet(name) -> one user message "Say hello to <name>."

    2026-07-28 extras (mcp >= 2 only):
    tools      ask_name() -> multi round-trip: first answers resultType "input_required" with one
                   elicitation/create input request (key "name", form with a string `name`,
                   requestState "asked-once"); the retry answers "hello <name> (state <state>)",
                   or "declined" when the elicitation was not accepted. In a handshake
                   revision (2025-06-18 on: elicitation is newer) it asks the same form with an
                   elicitation/create server request (ctx.elicit) and answers "hello <name>",
                   or "declined"
               route(region, text) -> "<region>:<text>"; `region` carries
                   "x-mcp-header": "Region", so HTTP calls must send Mcp-Param-Region
"""

from __future__ import annotations

import argparse
import sys

from typing import Annotated, Any, Optional

import anyio
from pydantic import BaseModel, Field

try:  # mcp >= 2: FastMCP was renamed MCPServer.
    from mcp.server.mcpserver import Context, MCPServer as _Server
    from mcp.server.mcpserver.exceptions import ToolError
    from mcp_types import InputRequiredResult
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    _SDK_MAJOR = 2
except ImportError:  # mcp 1.x
    from mcp.server.fastmcp import Context, FastMCP as _Server  # type: ignore[no-redef]
    from mcp.server.fastmcp.exceptions import ToolError  # type: ignore[no-redef]

    _SDK_MAJOR = 1

LOOPBACK = "127.0.0.1"
MAX_SLEEP_MS = 60_000


SERVER_VERSION = "0.1.0"


class _Name(BaseModel):
    name: str


class Address(BaseModel):
    street: str
    city: str
    zip: Optional[str] = None


class Person(BaseModel):
    name: str
    address: Address
    friends: list["Person"] = []


def build_server(**settings) -> _Server:
    """Build the server and register its tools, resources and prompts."""
    server = _Server(name="py-peer", instructions="Test peer for the Rust MCP client.", **settings)

    @server.tool(description="Return the given text unchanged.")
    def echo(text: str) -> str:
        return text

    @server.tool(description="Add two integers.")
    def add(a: int, b: int) -> int:
        return a + b

    @server.tool(description="Send `steps` progress notifications, then return.")
    async def progress(ctx: Context, steps: int = 3, delay_ms: int = 10) -> str:
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}/{steps}")
            await anyio.sleep(max(delay_ms, 0) / 1000)
        return f"done {steps}"

    @server.tool(description="Always fails: returns a result with isError true.")
    def fail(message: str = "boom") -> str:
        raise ToolError(message)

    @server.tool(name="files.read_text", description="Read a text file (dotted name, optional arguments).")
    def files_read_text(path: str, max_bytes: Optional[int] = None, encoding: Optional[str] = None) -> str:
        return f"read {path} max_bytes={max_bytes} encoding={encoding}"

    @server.tool(description="Describe a person (nested and recursive models: $defs and $ref).")
    def describe_person(person: Person, note: Optional[str] = None) -> str:
        text = f"{person.name} lives in {person.address.city} ({len(person.friends)} friends)"
        return text if note is None else f"{text}; {note}"

    @server.tool(description="Wait `ms` milliseconds (at most 60000), then return.")
    async def sleep(ms: int) -> str:
        await anyio.sleep(min(max(ms, 0), MAX_SLEEP_MS) / 1000)
        return f"slept {ms}"

    @server.tool(description="Ask the user for a name with a server request (elicitation/create), then greet.")
    async def elicit_name(ctx: Context) -> str:
        answer = await ctx.elicit(message="Your name?", schema=_Name)
        if answer.action != "accept":
            return answer.action
        return f"hello {answer.data.name}"

    if _SDK_MAJOR >= 2:
        _add_modern_tools(server)

    @server.resource("peer://static/greeting", mime_type="text/plain", description="A fixed text resource.")
    def greeting() -> str:
        return "hello from py_server"

    @server.resource("peer://echo/{text}", mime_type="text/plain", description="Reads back its URI parameter.")
    def echo_resource(text: str) -> str:
        return text

    @server.prompt(description="Ask the model to greet someone.")
    def greet(name: str) -> str:
        return f"Say hello to {name}."

    return server


def _add_modern_tools(server: _Server) -> None:
    """Tools that exercise 2026-07-28 client features (multi round-trip, x-mcp-header)."""

    @server.tool(description="Ask the user for a name (multi round-trip elicitation), then greet.")
    async def ask_name(ctx: Context) -> str | InputRequiredResult:
        if ctx.protocol_version not in MODERN_PROTOCOL_VERSIONS:
            # An input_required result is not a tools/call result in a handshake
            # revision (the SDK refuses it: "Handler returned an invalid result");
            # there the question goes out as the server request those revisions have.
            answer = await ctx.elicit(message="What is your name?", schema=_Name)
            if answer.action != "accept":
                return "declined"
            return f"hello {answer.data.name}"
        responses = ctx.input_responses or {}
        answer = responses.get("name")
        if answer is None:
            return InputRequiredResult.model_validate(
                {
                    "resultType": "input_required",
                    "inputRequests": {
                        "name": {
                            "method": "elicitation/create",
                            "params": {
                                "mode": "form",
                                "message": "What is your name?",
                                "requestedSchema": {
                                    "type": "object",
                                    "properties": {"name": {"type": "string"}},
                                    "required": ["name"],
                                },
                            },
                        }
                    },
                    "requestState": "asked-once",
                }
            )
        data: Any = answer.model_dump(by_alias=True, exclude_none=True) if hasattr(answer, "model_dump") else answer
        if data.get("action") != "accept":
            return "declined"
        return f"hello {data.get('content', {}).get('name')} (state {ctx.request_state})"

    @server.tool(description="Route by region; region is mirrored in the Mcp-Param-Region header.")
    def route(
        region: Annotated[str, Field(json_schema_extra={"x-mcp-header": "Region"})],
        text: str,
    ) -> str:
        return f"{region}:{text}"


def _run_gzipped(server: _Server, args: argparse.Namespace) -> None:
    """Serve the HTTP app behind GZipMiddleware: a real server that compresses its replies."""
    import uvicorn
    from starlette.middleware.gzip import GZipMiddleware

    if args.transport == "sse":
        app = server.sse_app()
    else:
        app = server.streamable_http_app(
            json_response=args.json_response,
            stateless_http=args.stateless,
            host=LOOPBACK,
        )
    # minimum_size=0 and no excluded types: every reply is compressed,
    # text/event-stream included (excluded by default).
    gzipped = GZipMiddleware(app, minimum_size=0, exclude_content_types=())
    uvicorn.run(gzipped, host=LOOPBACK, port=args.port, log_level="warning")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--transport", choices=["stdio", "streamable-http", "sse"], default="stdio")
    parser.add_argument("--port", type=int, default=None, help="TCP port on 127.0.0.1 (HTTP transports)")
    parser.add_argument("--json-response", action="store_true", help="streamable-http: answer POSTs with JSON, not SSE")
    parser.add_argument("--stateless", action="store_true", help="streamable-http: no Mcp-Session-Id, no GET stream")
    parser.add_argument(
        "--gzip",
        action="store_true",
        help="HTTP transports, mcp >= 2: serve behind Starlette's GZipMiddleware (event streams too)",
    )
    args = parser.parse_args(argv)

    if args.transport != "stdio" and args.port is None:
        parser.error(f"--port is required for --transport {args.transport}")
    if args.transport != "streamable-http" and (args.json_response or args.stateless):
        parser.error("--json-response/--stateless apply to --transport streamable-http only")

    if args.gzip and (args.transport == "stdio" or _SDK_MAJOR < 2):
        parser.error("--gzip applies to the HTTP transports with mcp >= 2 only")

    if _SDK_MAJOR >= 2:
        server = build_server(version=SERVER_VERSION)
        if args.gzip:
            _run_gzipped(server, args)
        elif args.transport == "stdio":
            server.run("stdio")
        elif args.transport == "sse":
            server.run("sse", host=LOOPBACK, port=args.port)
        else:
            server.run(
                "streamable-http",
                host=LOOPBACK,
                port=args.port,
                json_response=args.json_response,
                stateless_http=args.stateless,
            )
    else:  # mcp 1.x takes the HTTP settings in the constructor.
        server = build_server(
            host=LOOPBACK,
            port=args.port or 8000,
            json_response=args.json_response,
            stateless_http=args.stateless,
        )
        server.run(args.transport)
    return 0


if __name__ == "__main__":
    sys.exit(main())
