"""The Python SDK client for `cargo xtask bench`: runs the same suite
as bench-client/src/suite.rs and prints `RESULT <json>`.

    tests/peers/.venv/bin/python py-client.py --transport stdio|http-json|http-sse
        [--server PATH] [--url URL] [--quick]
"""

import argparse
import asyncio
import json
import time
from contextlib import AsyncExitStack

from mcp import ClientSession, StdioServerParameters
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

p = argparse.ArgumentParser()
p.add_argument("--transport", required=True)
p.add_argument("--server")
p.add_argument("--url")
p.add_argument("--quick", action="store_true")
args = p.parse_args()
F = 0.4 if args.quick else 1.0
BUDGET = {"latency": 1.0 * F, "throughput": 0.8 * F, "list": 1.0 * F, "idle": 4 if args.quick else 40}


def proc_status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return float(line.split()[1])
    return 0.0


def text(n):
    return "".join(chr(97 + i % 26) for i in range(n))


SMALL, LARGE = text(100), text(100 * 1024)


async def connect(stack):
    if args.transport == "stdio":
        streams = stdio_client(StdioServerParameters(command=args.server, args=["stdio"]))
    else:
        streams = streamable_http_client(args.url)
    read, write = await stack.enter_async_context(streams)
    session = await stack.enter_async_context(ClientSession(read, write))
    await session.initialize()
    return session


async def call(s, t):
    r = await s.call_tool("echo", {"text": t})
    if len(r.content[0].text) != len(t):
        raise RuntimeError("bad echo")


def pct(xs, p):
    return xs[min(len(xs) - 1, round((len(xs) - 1) * p))]


async def latency(s, t, mx):
    samples = []
    start = time.perf_counter()
    while len(samples) < mx and (len(samples) < 20 or time.perf_counter() - start < BUDGET["latency"]):
        t0 = time.perf_counter()
        await call(s, t)
        samples.append((time.perf_counter() - t0) * 1e6)
    samples.sort()
    return pct(samples, 0.5), pct(samples, 0.99)


async def throughput(s, n, text=SMALL):
    done = 0
    stop = False

    async def worker():
        nonlocal done
        while not stop:
            await call(s, text)
            done += 1

    start = time.perf_counter()
    tasks = [asyncio.create_task(worker()) for _ in range(n)]
    await asyncio.sleep(BUDGET["throughput"])
    stop = True
    await asyncio.gather(*tasks)
    return done / (time.perf_counter() - start)


async def main():
    r = {"client": "python", "transport": args.transport}
    async with AsyncExitStack() as stack:
        t = time.perf_counter()
        s = await connect(stack)
        r["connect_ms"] = (time.perf_counter() - t) * 1e3
        before = proc_status("VmRSS:")
        async with AsyncExitStack() as idle_stack:
            for _ in range(BUDGET["idle"]):
                c = await connect(idle_stack)
                await call(c, SMALL)
            await asyncio.sleep(0.05)
            r["idle_kib_per_conn"] = (proc_status("VmRSS:") - before) / BUDGET["idle"]
        for _ in range(50):
            await call(s, SMALL)
        r["lat_small_p50_us"], r["lat_small_p99_us"] = await latency(s, SMALL, 20000)
        r["lat_large_p50_us"], r["lat_large_p99_us"] = await latency(s, LARGE, 2000)
        r["tput_1"] = await throughput(s, 1)
        r["tput_16"] = await throughput(s, 16)
        r["tput_256"] = await throughput(s, 256)
        # The peak of the 100 KiB x 256 workload alone: VmHWM reset to the RSS first.
        peak_before = proc_status("VmHWM:")
        try:
            with open("/proc/self/clear_refs", "w") as f:
                f.write("5")
        except OSError:
            pass  # the peak keeps counting from the start
        r["tput_256_large"] = await throughput(s, 256, LARGE)
        r["peak_rss_large_256_kib"] = proc_status("VmHWM:")
        lists = []
        t = time.perf_counter()
        while len(lists) < 3 or (time.perf_counter() - t < BUDGET["list"] and len(lists) < 200):
            t0 = time.perf_counter()
            tools = (await s.list_tools()).tools
            if len(tools) != 1000:
                raise RuntimeError(f"tools/list returned {len(tools)}")
            lists.append((time.perf_counter() - t0) * 1e3)
        lists.sort()
        r["list_ms"] = pct(lists, 0.5)
        r["peak_rss_kib"] = max(peak_before, r["peak_rss_large_256_kib"], proc_status("VmHWM:"))
        print("RESULT " + json.dumps(r), flush=True)


asyncio.run(main())
