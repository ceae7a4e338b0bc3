import { inject } from 'vitest';
import { configureServiceCalls } from '@kith/platform';

// The tests' own gRPC clients (fixtures that seed data over a service's contract) call as a
// process of the system would, with its key; without it every call is refused.
configureServiceCalls(inject('serviceTokenKey'), 'e2e-tests');
