import {
  Metadata,
  Server,
  ServerInterceptingCall,
  type ServerInterceptor,
  ServerCredentials,
  credentials,
  makeGenericClientConstructor,
  status as Status,
  type Client,
  type ServerUnaryCall,
  type ServiceDefinition,
  type ServiceError,
  type sendUnaryData,
} from '@grpc/grpc-js';
import {
  create,
  fromBinary,
  toBinary,
  type DescMessage,
  type DescMethod,
  type DescService,
  type MessageInitShape,
  type MessageShape,
} from '@bufbuild/protobuf';
import type { GenService, GenServiceMethods } from '@bufbuild/protobuf/codegenv2';
import { HealthImplementation } from 'grpc-health-check';
import { ApiError, OverloadedError, isStoreUnavailable, type ErrorBody } from './errors.js';
import type { Logger } from './logger.js';
import { SERVICE_TOKEN_METADATA, serviceCalls } from './service-calls.js';

export { Status as GrpcStatus };

type Methods<S> = S extends GenService<infer M extends GenServiceMethods> ? M : never;

/** A typed implementation of a generated service: one async function per unary method. */
export type ServiceImpl<S> = {
  [K in keyof Methods<S>]: (
    request: MessageShape<Methods<S>[K]['input']>,
    meta: Metadata,
  ) => Promise<MessageInitShape<Methods<S>[K]['output']>>;
};

/** A typed client of a generated service: one promise-returning function per unary method. */
export type ServiceClient<S> = {
  [K in keyof Methods<S>]: (
    request: MessageInitShape<Methods<S>[K]['input']>,
    options?: { deadlineMs?: number },
  ) => Promise<MessageShape<Methods<S>[K]['output']>>;
} & { close(): void };

/** Errors travel as gRPC statuses; a platform error body rides along in this trailer. */
const ERROR_BODY_KEY = 'kith-error-body';

/** The path of a method on the wire: `/pkg.Service/Method`. */
const pathOf = (method: DescMethod): string => `/${method.parent.typeName}/${method.name}`;

/**
 * The grpc-js definition of a service. A server's is keyed by each method's local name (its
 * handler's name); a client's by its path, see `createClient`.
 */
function definitionOf(service: DescService, side: 'server' | 'client'): ServiceDefinition {
  const definition: Record<string, ServiceDefinition[string]> = {};
  for (const method of service.methods) {
    if (method.methodKind !== 'unary') throw new Error(`${service.typeName}.${method.name}: only unary methods are supported`);
    definition[side === 'server' ? method.localName : pathOf(method)] = {
      path: pathOf(method),
      requestStream: false,
      responseStream: false,
      requestSerialize: (msg: MessageShape<DescMessage>) => Buffer.from(toBinary(method.input, msg)),
      requestDeserialize: (buf: Buffer) => fromBinary(method.input, buf),
      responseSerialize: (msg: MessageShape<DescMessage>) => Buffer.from(toBinary(method.output, msg)),
      responseDeserialize: (buf: Buffer) => fromBinary(method.output, buf),
      // grpc-js adds a client method under this name too: a client gets none.
      ...(side === 'server' ? { originalName: method.name } : {}),
    };
  }
  return definition;
}

const HTTP_TO_GRPC: Record<number, Status> = {
  400: Status.INVALID_ARGUMENT,
  401: Status.UNAUTHENTICATED,
  403: Status.PERMISSION_DENIED,
  404: Status.NOT_FOUND,
  409: Status.ALREADY_EXISTS,
  429: Status.RESOURCE_EXHAUSTED,
};

/** Our error → a gRPC status, keeping the platform body so the caller can answer with it as is. */
export function toServiceError(err: unknown, logger?: Logger): Partial<ServiceError> {
  if (err instanceof ApiError) {
    const metadata = new Metadata();
    metadata.set(ERROR_BODY_KEY, asciiJson({ status: err.status, body: err.body }));
    return { code: HTTP_TO_GRPC[err.status] ?? Status.UNKNOWN, details: err.body.message, metadata };
  }
  if (err instanceof OverloadedError) return { code: Status.UNAVAILABLE, details: err.message };
  if (isStoreUnavailable(err)) {
    logger?.error({ err }, 'store unavailable');
    return { code: Status.UNAVAILABLE, details: 'store unavailable' };
  }
  logger?.error({ err }, 'grpc handler failed');
  return { code: Status.INTERNAL, details: 'internal error' };
}

/**
 * JSON with every character outside printable ASCII escaped: a text metadata value may hold only
 * printable ASCII (grpc-js throws otherwise), and a body can echo user input such as a username.
 */
function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A gRPC dependency that did not answer in time or at all: the HTTP edge answers 503/504. */
export class UpstreamError extends Error {
  constructor(
    readonly status: 502 | 503 | 504,
    message: string,
  ) {
    super(message);
    this.name = 'UpstreamError';
  }
}

/** A gRPC status → the error the caller throws: the callee's platform error, or an upstream failure. */
export function fromServiceError(err: ServiceError): Error {
  const encoded = err.metadata?.get(ERROR_BODY_KEY)[0];
  if (typeof encoded === 'string') {
    const { status, body } = JSON.parse(encoded) as { status: number; body: ErrorBody };
    return new ApiError(status, body);
  }
  if (err.code === Status.DEADLINE_EXCEEDED) return new UpstreamError(504, err.details);
  if (err.code === Status.UNAVAILABLE) return new UpstreamError(503, err.details);
  return new UpstreamError(502, err.details);
}

export interface GrpcServer {
  server: Server;
  health: HealthImplementation;
  port: number;
  /** Finishes calls in flight, then closes; forces after the grace period. */
  close(graceMs?: number): Promise<void>;
}

export function addService<S extends DescService>(server: Server, service: S, impl: ServiceImpl<S>, logger?: Logger): void {
  const handlers: Record<string, (call: ServerUnaryCall<unknown, unknown>, cb: sendUnaryData<unknown>) => void> = {};
  const methods = impl as unknown as Record<string, (req: unknown, meta: Metadata) => Promise<unknown>>;
  for (const method of service.methods) {
    const fn = methods[method.localName];
    if (!fn) throw new Error(`${service.typeName}.${method.name} has no implementation`);
    handlers[method.localName] = (call, callback) => {
      fn.call(impl, call.request, call.metadata).then(
        (result) => callback(null, create(method.output, result as MessageInitShape<DescMessage>)),
        (err: unknown) => callback(toServiceError(err, logger)),
      );
    };
  }
  server.addService(definitionOf(service, 'server'), handlers);
}

const HEALTH_PATH = '/grpc.health.v1.Health/';

/**
 * Refuses every call that does not carry a service token (service-calls.ts) for the gRPC service
 * it calls, before the handler runs. Health checks stay open: probes carry no token.
 */
const serviceCallsOnly: ServerInterceptor = (method, call) =>
  new ServerInterceptingCall(call, {
    start: (next) =>
      next({
        onReceiveMetadata: (metadata, proceed) => {
          if (method.path.startsWith(HEALTH_PATH)) return proceed(metadata);
          const header = metadata.get(SERVICE_TOKEN_METADATA)[0];
          const token = typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
          const audience = method.path.slice(1, method.path.lastIndexOf('/'));
          if (serviceCalls.verify(token, audience)) return proceed(metadata);
          call.sendStatus({ code: Status.UNAUTHENTICATED, details: 'a service token is required', metadata: new Metadata() });
        },
      }),
  });

/** Starts a gRPC server with the standard health service; every added service reports SERVING. */
export async function startGrpcServer(opts: {
  host?: string;
  port: number;
  logger?: Logger;
  register: (server: Server) => string[];
}): Promise<GrpcServer> {
  const server = new Server({ 'grpc.max_receive_message_length': 4 * 1024 * 1024, interceptors: [serviceCallsOnly] });
  const health = new HealthImplementation({ '': 'SERVING' });
  health.addToServer(server);
  for (const name of opts.register(server)) health.setStatus(name, 'SERVING');
  const port = await new Promise<number>((resolve, reject) =>
    server.bindAsync(`${opts.host ?? '0.0.0.0'}:${opts.port}`, ServerCredentials.createInsecure(), (err, bound) =>
      err ? reject(err) : resolve(bound),
    ),
  );
  return {
    server,
    health,
    port,
    close: (graceMs = 5000) =>
      new Promise<void>((resolve) => {
        health.setStatus('', 'NOT_SERVING');
        const timer = setTimeout(() => server.forceShutdown(), graceMs);
        server.tryShutdown(() => {
          clearTimeout(timer);
          resolve();
        });
      }),
  };
}

/**
 * Names a typed client keeps for itself: `close`, and `then`, which would make the client a
 * thenable that `await` or an async function's return calls as an RPC.
 */
export const RESERVED_CLIENT_NAMES: ReadonlySet<string> = new Set(['close', 'then']);

const GRPC_CLIENT = Symbol('grpc-js client');

/** The grpc-js client under a typed client (for checks of the channel and of the adapter itself). */
export function grpcClientOf(typed: ServiceClient<DescService>): Client {
  return (typed as unknown as Record<symbol, Client>)[GRPC_CLIENT]!;
}

/**
 * A typed client; every call carries a deadline (default 2 s) so nothing waits forever.
 *
 * The grpc-js client underneath has each method under its path (`/pkg.Service/Method`), which no
 * JavaScript identifier can equal, so no RPC can shadow a `Client` method such as `getChannel()`,
 * which OpenTelemetry's gRPC instrumentation calls on every request. The typed object returned
 * carries the RPCs under their local names (`getChannel`), beside only `close`.
 */
export function createClient<S extends DescService>(service: S, address: string, defaultDeadlineMs = 2000): ServiceClient<S> {
  for (const method of service.methods)
    if (RESERVED_CLIENT_NAMES.has(method.localName) || method.localName in Object.prototype)
      throw new Error(`${service.typeName}.${method.name}: a client keeps '${method.localName}' for itself; rename the RPC`);
  const Ctor = makeGenericClientConstructor(definitionOf(service, 'client'), service.typeName);
  const client: Client = new Ctor(address, credentials.createInsecure(), {
    'grpc.keepalive_time_ms': 30_000,
  });
  const generic = client as unknown as Record<string, Function>;
  const typed: Record<string | symbol, unknown> = { close: () => client.close() };
  Object.defineProperty(typed, GRPC_CLIENT, { value: client });
  for (const method of service.methods) {
    const raw = generic[pathOf(method)]!.bind(client);
    typed[method.localName] = (request: MessageInitShape<DescMessage>, options?: { deadlineMs?: number }) =>
      new Promise((resolve, reject) => {
        const deadline = new Date(Date.now() + (options?.deadlineMs ?? defaultDeadlineMs));
        const metadata = new Metadata();
        metadata.set(SERVICE_TOKEN_METADATA, `Bearer ${serviceCalls.tokenFor(service.typeName)}`);
        raw(create(method.input, request), metadata, { deadline }, (err: ServiceError | null, response: unknown) =>
          err ? reject(fromServiceError(err)) : resolve(response),
        );
      });
  }
  return typed as ServiceClient<S>;
}
