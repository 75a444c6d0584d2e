import pg from 'pg';
import type { ConnectionBudget, Permit } from './connection-budget.js';

type ConnectCallback = ((err: Error) => void) | ((err: null, c: pg.Client) => void);

/**
 * A node-postgres Client class whose connections hold a permit of `budget` for `owner`
 * from before they open until they end. pg.Pool takes it as its `Client` option, so the
 * pools count against the budget without a fork of pg; a client that cannot get a permit
 * in time fails to connect with ConnectionBudgetError.
 */
export function budgetedClient(budget: ConnectionBudget, owner: string): typeof pg.Client {
  return class BudgetedClient extends pg.Client {
    override connect(): Promise<pg.Client>;
    override connect(callback: ConnectCallback): void;
    override connect(callback?: ConnectCallback): Promise<pg.Client> | void {
      const opened = this.open();
      if (!callback) return opened;
      opened.then(
        (client) => (callback as (err: null, c: pg.Client) => void)(null, client),
        (error: Error) => (callback as (err: Error) => void)(error),
      );
    }

    private async open(): Promise<pg.Client> {
      const permit: Permit = await budget.acquire(owner);
      // 'end' comes for a closed, dropped or failed connection alike; release is idempotent.
      this.once('end', () => permit.release());
      try {
        await super.connect();
      } catch (error) {
        permit.release();
        throw error;
      }
      return this;
    }
  };
}
