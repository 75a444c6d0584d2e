import type pg from 'pg';

/**
 * PostgreSQL's own analysis of a statement, without running it: the extended protocol's Parse of an unnamed
 * statement, Describe of it and Sync, on the caller's connection (inside its transaction, if it has one open).
 * node-postgres has no public describe; a Submittable (what `client.query` accepts besides text) writes the
 * messages itself and reads the answer, and the connection's `parameterDescription` event, which the client does
 * not route to queries, gives the parameter types. Chosen over another driver (postgres.js has `describe()`)
 * because it must run on the very node-postgres connection that holds the migration's open transaction.
 */

/** One result column: its name and type, and where PostgreSQL traced it to a table column (`tableOid` 0 when not). */
export interface DescribedField {
  readonly name: string;
  readonly typeOid: number;
  readonly tableOid: number;
  readonly attnum: number;
}

export interface StatementDescription {
  /** The type PostgreSQL inferred for each `$n`, in order. */
  readonly params: readonly number[];
  /** Empty for a statement that returns no rows. */
  readonly fields: readonly DescribedField[];
}

/** An error message as node-postgres hands it over (pg-protocol's DatabaseError). */
export interface DescribeFailure extends Error {
  readonly code?: string;
  /** 1-based character offset into the statement, as text. */
  readonly position?: string;
}

interface ProtocolConnection {
  parse(query: { text: string; name: string; types: readonly number[] }): void;
  describe(message: { type: 'S'; name: string }): void;
  sync(): void;
  on(event: 'parameterDescription', listener: (message: { dataTypeIDs: number[] }) => void): void;
  off(event: 'parameterDescription', listener: (message: { dataTypeIDs: number[] }) => void): void;
}

interface RowDescription {
  readonly fields: readonly { name: string; tableID: number; columnID: number; dataTypeID: number }[];
}

/** Describes `text` on `client`; rejects with PostgreSQL's error when it does not parse or analyse. */
export function describeStatement(client: pg.ClientBase, text: string): Promise<StatementDescription> {
  return new Promise((resolve, reject) => {
    let params: readonly number[] = [];
    let fields: readonly DescribedField[] = [];
    let connection: ProtocolConnection | null = null;
    const onParameters = (message: { dataTypeIDs: number[] }): void => {
      params = message.dataTypeIDs;
    };
    const done = (): void => connection?.off('parameterDescription', onParameters);
    const ignore = (): void => {};
    const submittable = {
      submit(con: ProtocolConnection): void {
        connection = con;
        con.on('parameterDescription', onParameters);
        con.parse({ text, name: '', types: [] });
        con.describe({ type: 'S', name: '' });
        con.sync();
      },
      handleRowDescription(message: RowDescription): void {
        fields = message.fields.map((f) => ({ name: f.name, typeOid: f.dataTypeID, tableOid: f.tableID, attnum: f.columnID }));
      },
      // The client stops routing to a query once it has failed: ReadyForQuery then reaches no one.
      handleError(error: DescribeFailure): void {
        done();
        reject(error);
      },
      handleReadyForQuery(): void {
        done();
        resolve({ params, fields });
      },
      handleDataRow: ignore,
      handleCommandComplete: ignore,
      handleEmptyQuery: ignore,
      handlePortalSuspended: ignore,
      handleCopyInResponse: ignore,
      handleCopyData: ignore,
    };
    void client.query(submittable as unknown as pg.Submittable);
  });
}
