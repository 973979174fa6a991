import { desc, eq, sql } from 'drizzle-orm';
import type { BetterSQLite3Database } from 'drizzle-orm/better-sqlite3';
import { AgentFSError } from './errors.js';
import { toolCalls } from './schema.js';

/** One finished tool call. Times are Unix seconds, like the format's columns; exactly one of result/error. */
export interface ToolCallInput {
  name: string;
  parameters?: unknown;
  result?: unknown;
  error?: string;
  startedAt: number;
  completedAt: number;
  /** Defaults to (completedAt - startedAt) * 1000. */
  durationMs?: number;
}

/** A row of the tool-call log. */
export interface ToolCall {
  id: number;
  name: string;
  parameters: unknown;
  result: unknown;
  error: string | null;
  status: string;
  startedAt: number;
  completedAt: number | null;
  durationMs: number | null;
}

/** The insert-only tool-call log of a store. */
export class ToolCalls {
  private readonly db: BetterSQLite3Database;

  constructor(db: BetterSQLite3Database) {
    this.db = db;
  }

  /** Appends one finished call; returns its id. */
  record(call: ToolCallInput): number {
    if (typeof call.name !== 'string' || call.name.length === 0)
      throw new AgentFSError('EINVAL', 'tools.record', undefined, 'name is required');
    const hasError = call.error !== undefined;
    if (hasError === (call.result !== undefined)) {
      throw new AgentFSError('EINVAL', 'tools.record', call.name, 'exactly one of result and error must be set');
    }
    if (!Number.isFinite(call.startedAt) || !Number.isFinite(call.completedAt) || call.completedAt < call.startedAt) {
      throw new AgentFSError('EINVAL', 'tools.record', call.name, 'startedAt and completedAt must be times with completedAt >= startedAt');
    }
    const row = this.db
      .insert(toolCalls)
      .values({
        name: call.name,
        parameters: call.parameters === undefined ? null : JSON.stringify(call.parameters),
        result: hasError ? null : JSON.stringify(call.result),
        error: hasError ? call.error! : null,
        status: hasError ? 'error' : 'success',
        startedAt: Math.floor(call.startedAt),
        completedAt: Math.floor(call.completedAt),
        durationMs: Math.round(call.durationMs ?? (call.completedAt - call.startedAt) * 1000),
      })
      .returning({ id: toolCalls.id })
      .get();
    return row.id;
  }

  get(id: number): ToolCall | undefined {
    const row = this.db.select().from(toolCalls).where(eq(toolCalls.id, id)).get();
    return row === undefined ? undefined : toToolCall(row);
  }

  /** Calls in insertion order, optionally only those named `name`. */
  list(options: { name?: string; limit?: number } = {}): ToolCall[] {
    const query = this.db.select().from(toolCalls);
    const filtered = options.name === undefined ? query : query.where(eq(toolCalls.name, options.name));
    return filtered
      .orderBy(toolCalls.id)
      .limit(options.limit ?? -1)
      .all()
      .map(toToolCall);
  }

  /** The most recent calls first. */
  recent(limit = 20): ToolCall[] {
    return this.db.select().from(toolCalls).orderBy(desc(toolCalls.id)).limit(limit).all().map(toToolCall);
  }

  /** Per-name totals. */
  stats(): { name: string; total: number; failed: number; avgDurationMs: number }[] {
    return this.db
      .select({
        name: toolCalls.name,
        total: sql<number>`count(*)`,
        failed: sql<number>`sum(case when ${toolCalls.error} is not null then 1 else 0 end)`,
        avgDurationMs: sql<number>`coalesce(avg(${toolCalls.durationMs}), 0)`,
      })
      .from(toolCalls)
      .groupBy(toolCalls.name)
      .orderBy(toolCalls.name)
      .all();
  }
}

function toToolCall(row: typeof toolCalls.$inferSelect): ToolCall {
  return {
    id: row.id,
    name: row.name,
    parameters: row.parameters === null ? null : JSON.parse(row.parameters),
    result: row.result === null ? null : JSON.parse(row.result),
    error: row.error,
    status: row.status,
    startedAt: row.startedAt,
    completedAt: row.completedAt,
    durationMs: row.durationMs,
  };
}
