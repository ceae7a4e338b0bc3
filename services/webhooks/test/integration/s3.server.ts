import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import S3rver from 's3rver';

/** An S3-protocol server on loopback (s3rver) with one bucket, for the S3 adapter to speak to. */
export async function startS3(bucket: string): Promise<{ endpoint: string; close(): Promise<void> }> {
  const directory = await mkdtemp(join(tmpdir(), 'kith-s3-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  return {
    endpoint: `http://127.0.0.1:${port}`,
    close: async () => {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
