/**
 * kith-operator: an operator's command for account standing, over auth's gRPC SetAccountStanding.
 *
 *   node services/auth/dist/operator.js <suspend|flag-suspicious|require-password-update|lift> <user_id> [reason…]
 *
 * It calls as a process of the deployment does, so it needs the deployment's SERVICE_TOKEN_KEY; it
 * reaches auth at AUTH_GRPC_ADDR (default: this host's auth, 127.0.0.1:$GRPC_PORT or 50051). On
 * Kubernetes: `kubectl exec deploy/auth -- node dist/operator.js suspend <user_id> spam`.
 */
import { ApiError, configureServiceCalls, createClient } from '@kith/platform';
import { AuthService, StandingAction } from '@kith/proto/auth/v1/auth';
import { readOperatorConfig } from './config.js';

const ACTIONS: Record<string, StandingAction> = {
  suspend: StandingAction.SUSPEND,
  'flag-suspicious': StandingAction.FLAG_SUSPICIOUS,
  'require-password-update': StandingAction.REQUIRE_PASSWORD_UPDATE,
  lift: StandingAction.LIFT,
};
const USAGE = `usage: kith-operator <${Object.keys(ACTIONS).join('|')}> <user_id> [reason…]`;

const env = readOperatorConfig();

async function main(): Promise<number> {
  const [verb, userId, ...reason] = process.argv.slice(2);
  const action = verb === undefined ? undefined : ACTIONS[verb];
  if (action === undefined || !userId || !/^\d{1,20}$/.test(userId)) {
    process.stderr.write(`${USAGE}\n`);
    return 2;
  }
  if (!env.success) {
    process.stderr.write(`${env.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('\n')}\n`);
    return 2;
  }
  configureServiceCalls(env.data.SERVICE_TOKEN_KEY, 'kith-operator');
  const auth = createClient(AuthService, env.data.AUTH_GRPC_ADDR ?? `127.0.0.1:${env.data.GRPC_PORT}`, 10_000);
  try {
    const { sessionsEnded } = await auth.setAccountStanding({ userId, action, reason: reason.join(' ') });
    process.stdout.write(`${verb} ${userId}: done, ${sessionsEnded} session(s) ended\n`);
    return 0;
  } catch (err) {
    const message = err instanceof ApiError ? `${err.body.code} ${err.body.message}` : String(err);
    process.stderr.write(`${verb} ${userId}: ${message}\n`);
    return 1;
  } finally {
    auth.close();
  }
}

process.exitCode = await main();
