// Baseline: bare express 5 with its defaults, one JSON route — the framework's own ceiling on this
// machine. Listens on a free port (or PORT) and prints {"port": N} once listening.
import express from 'express';

const app = express();
app.get('/', (_req, res) => {
  res.json({ hello: 'world' });
});

const server = app.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`);
});

for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(0));
