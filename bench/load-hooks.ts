import { fileURLToPath } from 'node:url';

/**
 * Code that autocannon runs in its worker thread: in worker mode it takes `setupRequest` and `verifyBody` only as
 * paths of CommonJS files, which it `require`s there (see bench/hooks/).
 */
export const LOAD_HOOKS = {
  /** Each request takes the next of the run's values (see next-value.cjs). */
  nextValue: fileURLToPath(new URL('./hooks/next-value.cjs', import.meta.url)),
  verifyCreateTransaction: fileURLToPath(new URL('./hooks/verify-create-transaction.cjs', import.meta.url)),
  /** Exactly `{"data":{"triggerTransactionEvent":{"sourceStateKey":"draft","targetStateKey":"in_progress"}}}`. */
  verifyTrigger: fileURLToPath(new URL('./hooks/verify-trigger.cjs', import.meta.url)),
};
