// The TypeScript SDK doing what `mcp call` does, for the cold-start rows of
// `cargo xtask bench`: spawn a stdio server, initialize, call one tool,
// print its first text content, close, exit. Timed from exec to exit.
//
//   node ts-call.mjs --peers DIR --tool NAME --args JSON -- COMMAND [ARGS...]
//
// DIR is tests/peers (the SDK comes from its node_modules, pinned there).
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const argv = process.argv.slice(2);
const value = (n) => { const i = argv.indexOf(n); return i >= 0 ? argv[i + 1] : undefined; };
const rest = argv.slice(argv.indexOf('--') + 1);
const sdk = join(value('--peers'), 'node_modules/@modelcontextprotocol/sdk/dist/esm/client');
const { Client } = await import(pathToFileURL(join(sdk, 'index.js')));
const { StdioClientTransport } = await import(pathToFileURL(join(sdk, 'stdio.js')));

const client = new Client({ name: 'ts-call', version: '0.1.0' });
await client.connect(new StdioClientTransport({ command: rest[0], args: rest.slice(1), stderr: 'inherit' }));
const result = await client.callTool({ name: value('--tool'), arguments: JSON.parse(value('--args')) });
const first = result.content?.[0];
process.stdout.write(`${first?.type === 'text' ? first.text : JSON.stringify(result)}\n`);
await client.close();
