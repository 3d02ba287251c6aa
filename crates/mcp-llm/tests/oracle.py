"""The providers' own published types as oracles for mcp-llm's JSON.

Usage: python oracle.py FILE.json, where FILE holds
    {"dialect": "openai" | "openai-responses" | "anthropic" | "gemini",
     "definitions": [...],   # the request's `tools` array as mcp-llm emits it
     "results": [...]}       # tool results (messages, items, blocks or parts)

Each definition and result is validated with the dialect's SDK type (openai, anthropic,
google-genai, installed by tests/peers/setup.sh). The OpenAI and Anthropic request types are
TypedDicts, which pydantic validates without refusing unknown keys: every key is also checked
against the TypedDict's declared keys, recursively where the value is itself a TypedDict. Lists
typed `Iterable[...]` are validated lazily by pydantic, so the items of a result's content
list are checked one by one against their block type.
Gemini's models refuse unknown keys themselves (extra="forbid"). Prints "ok N" (N objects
checked), or each refusal and exits 1. Exit 3 when an SDK is not installed.
"""

from __future__ import annotations

import json
import sys
import typing

try:
    from pydantic import TypeAdapter
    import openai  # noqa: F401
    import anthropic  # noqa: F401
    from google.genai import types as gtypes
    from openai.types.chat import ChatCompletionToolParam, ChatCompletionToolMessageParam
    from openai.types.shared_params import FunctionDefinition
    from openai.types.responses import FunctionToolParam
    from openai.types.responses.response_input_item_param import FunctionCallOutput
    from openai.types.responses import ResponseInputImageContentParam, ResponseInputTextContentParam
    from anthropic.types import ImageBlockParam, TextBlockParam, ToolParam, ToolResultBlockParam
except ImportError as e:  # pragma: no cover
    print(f"not installed: {e}")
    sys.exit(3)


def declared_keys(td) -> set[str]:
    return set(getattr(td, "__required_keys__", set())) | set(getattr(td, "__optional_keys__", set()))


def unknown_keys(value, td, path: str, errors: list[str]) -> None:
    """Keys of `value` that the TypedDict `td` does not declare, recursively into
    members whose declared type is itself a TypedDict."""
    if not isinstance(value, dict):
        return
    keys = declared_keys(td)
    hints = typing.get_type_hints(td, include_extras=False)
    for k, v in value.items():
        if k not in keys:
            errors.append(f"{path}/{k}: not a key of {td.__name__}")
            continue
        t = hints.get(k)
        for cand in [t, *typing.get_args(t)]:
            if isinstance(cand, type) and typing.is_typeddict(cand):
                unknown_keys(v, cand, f"{path}/{k}", errors)


def check(td, value, path: str, errors: list[str]) -> None:
    try:
        TypeAdapter(td).validate_python(value)
    except Exception as e:  # pydantic.ValidationError
        errors.append(f"{path}: {td.__name__}: {e}")
    unknown_keys(value, td, path, errors)


def main() -> int:
    with open(sys.argv[1]) as f:
        doc = json.load(f)
    dialect = doc["dialect"]
    errors: list[str] = []
    n = 0
    for i, d in enumerate(doc.get("definitions", [])):
        n += 1
        path = f"/definitions/{i}"
        if dialect == "openai":
            check(ChatCompletionToolParam, d, path, errors)
            check(FunctionDefinition, d.get("function"), path + "/function", errors)
        elif dialect == "openai-responses":
            check(FunctionToolParam, d, path, errors)
        elif dialect == "anthropic":
            check(ToolParam, d, path, errors)
        elif dialect == "gemini":
            try:
                tool = gtypes.Tool.model_validate(d)
                for decl in tool.function_declarations or []:
                    if decl.parameters is not None and decl.parameters_json_schema is not None:
                        errors.append(f"{path}: {decl.name}: both parameters and parametersJsonSchema")
            except Exception as e:
                errors.append(f"{path}: Tool: {e}")
        else:
            errors.append(f"unknown dialect {dialect!r}")
    for i, r in enumerate(doc.get("results", [])):
        n += 1
        path = f"/results/{i}"
        if dialect == "openai":
            check(ChatCompletionToolMessageParam, r, path, errors)
        elif dialect == "openai-responses":
            check(FunctionCallOutput, r, path, errors)
            items = r.get("output")
            for j, item in enumerate(items if isinstance(items, list) else []):
                n += 1
                kind = {"input_text": ResponseInputTextContentParam, "input_image": ResponseInputImageContentParam}
                td = kind.get(item.get("type"))
                if td is None:
                    errors.append(f"{path}/output/{j}: item type {item.get('type')!r}")
                else:
                    check(td, item, f"{path}/output/{j}", errors)
        elif dialect == "anthropic":
            check(ToolResultBlockParam, r, path, errors)
            blocks = r.get("content")
            for j, block in enumerate(blocks if isinstance(blocks, list) else []):
                n += 1
                td = {"text": TextBlockParam, "image": ImageBlockParam}.get(block.get("type"))
                if td is None:
                    errors.append(f"{path}/content/{j}: block type {block.get('type')!r}")
                else:
                    check(td, block, f"{path}/content/{j}", errors)
        elif dialect == "gemini":
            try:
                gtypes.Part.model_validate(r)
            except Exception as e:
                errors.append(f"{path}: Part: {e}")
    if errors:
        for e in errors:
            print(e)
        return 1
    print(f"ok {n}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
