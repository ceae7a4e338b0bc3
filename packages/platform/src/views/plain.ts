import type { Message } from '@bufbuild/protobuf';

/**
 * A contract message as plain data: the generated type without protobuf-es' `$typeName` and
 * `$unknown`, nested messages likewise. Services build these (a gRPC handler may answer one as
 * is) and the views render them; a received message is one too.
 */
export type Plain<T> = T extends Message
  ? { [K in keyof T as K extends '$typeName' | '$unknown' ? never : K]: Plain<T[K]> }
  : T extends readonly (infer E)[]
    ? Plain<E>[]
    : T;

/** Ids, image hashes and names travel as empty strings where the platform shows null. */
export const orNull = (value: string): string | null => (value === '' ? null : value);
