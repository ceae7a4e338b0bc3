// Baseline: the smallest useful JSON server node:http allows. Listens on a free port (or PORT) and
// prints {"port": N} once listening, so the benchmark knows where to aim.
import { createServer } from 'node:http';

const payload = JSON.stringify({ hello: 'world' });
const length = Buffer.byteLength(payload);

const server = createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json', 'content-length': length });
  res.end(payload);
});

server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
