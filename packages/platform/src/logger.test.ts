import { describe, expect, it } from 'vitest';
import { requestContext } from './context.js';
import { createLogger, redactPath } from './logger.js';

/** A logger writing into an array, one parsed JSON object per line. */
function capture(level: 'info' | 'debug' | 'warn' = 'info') {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger('svc-test', level, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
  return { logger, lines };
}

describe('createLogger', () => {
  it('when a line is written, then it is JSON with the service name, a level label and an ISO time', () => {
    const { logger, lines } = capture();
    logger.info({ user_id: '1' }, 'hello');
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 'info', service: 'svc-test', msg: 'hello', user_id: '1' });
    expect(new Date(lines[0]!.time as string).toISOString()).toBe(lines[0]!.time);
  });

  it('when secrets are logged at the top level, then each is redacted and other fields are kept', () => {
    const { logger, lines } = capture();
    logger.info({ authorization: 'Bot abc', password: 'hunter2', token: 't0k', code: '123456', ticket: 'tk', user_id: '7' }, 'login');
    expect(lines[0]).toMatchObject({
      authorization: '[redacted]',
      password: '[redacted]',
      token: '[redacted]',
      code: '[redacted]',
      ticket: '[redacted]',
      user_id: '7',
    });
  });

  it('when secrets are nested one and two levels down, then they are redacted there too', () => {
    const { logger, lines } = capture();
    logger.info({
      body: { password: 'hunter2', new_password: 'hunter3', login: 'a@b.c' },
      req: { headers: { authorization: 'tok', cookie: 'c=1', 'user-agent': 'ua' } },
      mfa: { challenge: { ticket: 'tk', code: '000000' } },
    });
    const line = JSON.stringify(lines[0]);
    for (const secret of ['hunter2', 'hunter3', '"tok"', 'c=1', '"tk"', '000000']) expect(line).not.toContain(secret);
    expect(lines[0]).toMatchObject({
      body: { password: '[redacted]', new_password: '[redacted]', login: 'a@b.c' },
      req: { headers: { authorization: '[redacted]', cookie: '[redacted]', 'user-agent': 'ua' } },
      mfa: { challenge: { ticket: '[redacted]', code: '[redacted]' } },
    });
  });

  it('when a line is written inside a request context, then it carries the request id and trace id', () => {
    const { logger, lines } = capture();
    requestContext.run({ requestId: 'req-abc', traceId: '0af7651916cd43dd8448eb211c80319c' }, () => logger.info('inside'));
    logger.info('outside');
    expect(lines[0]).toMatchObject({ msg: 'inside', request_id: 'req-abc', trace_id: '0af7651916cd43dd8448eb211c80319c' });
    expect(lines[1]).not.toHaveProperty('request_id');
    expect(lines[1]).not.toHaveProperty('trace_id');
  });

  it('when the context continues across an await, then later lines still carry the request id', async () => {
    const { logger, lines } = capture();
    await requestContext.run({ requestId: 'req-async' }, async () => {
      await new Promise((resolve) => setTimeout(resolve, 5));
      logger.warn('later');
    });
    expect(lines[0]).toMatchObject({ level: 'warn', request_id: 'req-async' });
  });

  it('when a child logger writes, then its bindings, request id and redaction all apply', () => {
    const { logger, lines } = capture();
    requestContext.run({ requestId: 'req-child' }, () => logger.child({ module: 'mfa' }).info({ secret: 's3' }, 'x'));
    expect(lines[0]).toMatchObject({ module: 'mfa', request_id: 'req-child', secret: '[redacted]' });
  });

  it('when a line is below the level, then nothing is written', () => {
    const { logger, lines } = capture('warn');
    logger.info('quiet');
    logger.debug('quieter');
    expect(lines).toEqual([]);
  });
});

describe('redactPath', () => {
  it('when a path carries a webhook token, then the token is replaced and the rest kept', () => {
    expect(
      redactPath(
        '/api/v10/webhooks/223704706495545344/3d89bb7572e0fb30d8128367b3b1b44fecd1726de135cbe28a41f8b2f777c372ba2939e72279b94526ff5d1bd4358d65cf11',
      ),
    ).toBe('/api/v10/webhooks/223704706495545344/[redacted]');
    expect(redactPath('/webhooks/1/tok-en_x/slack')).toBe('/webhooks/1/[redacted]/slack');
    expect(redactPath('/api/v9/webhooks/1/tok/messages/2')).toBe('/api/v9/webhooks/1/[redacted]/messages/2');
  });

  it('when a path has no webhook token, then it is unchanged', () => {
    for (const path of ['/api/v9/webhooks/223704706495545344', '/api/v9/channels/1/webhooks', '/api/v9/users/@me', '/webhooks/abc/def'])
      expect(redactPath(path)).toBe(path);
  });
});

describe('error serialisation', () => {
  it('when an error with a code is logged, then its code survives as error_code while `code` fields stay redacted', () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('err-test', 'info', {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    });
    const err = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    logger.error({ err, body: { code: '123456' } }, 'failed');
    expect(lines[0]).toMatchObject({
      err: { type: 'Error', message: 'connect ECONNREFUSED', error_code: 'ECONNREFUSED' },
      body: { code: '[redacted]' },
    });
  });
});
