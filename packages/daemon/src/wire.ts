import type { AcceptManyOptions, AcceptOptions, EventOptions } from '@cairn/api';
import { CairnError } from '@cairn/api';
import * as v from 'valibot';
import {
  readNumber,
  readOptionalFlag,
  readOptionalText,
  readOptionalTexts,
  readQueryFlag,
  readQueryNumber,
  readReviewBody,
  readSpawnBody,
  readStates,
  readText,
  type WireInput,
} from './wire-inputs.js';
import { MAX_PROGRAM_BODY, route, type WireRequest, type WireTable } from './wire-route.js';
import {
  acceptManyOutcomeSchema,
  acceptOutcomeSchema,
  agentInfoSchema,
  cairnEventSchema,
  changeInfoSchema,
  checkOutputSchema,
  checkResultInfoSchema,
  collectOutcomeSchema,
  daemonHealthSchema,
  fileProposalSchema,
  helloLineSchema,
  inboxLogViewSchema,
  inboxProcessOutcomeSchema,
  inboxThreadSchema,
  journalViewSchema,
  replayOutcomeSchema,
  shutdownAnswerSchema,
  skippedEntrySchema,
  syncSummarySchema,
  undoOutcomeSchema,
} from './wire-schemas.js';

export { requestTarget, type WireRoute, type WireTarget } from './wire-route.js';

const onAgent = (id: string): WireRequest => ({ params: { id } });
const agentId = (input: WireInput): [string] => [input.param('id')];

/** The daemon's routes: the one place a path, a method, an encoding and an answer's schema are written. */
export const WIRE: WireTable = {
  health: route({
    method: 'GET',
    path: '/health',
    request: () => ({}),
    args: () => [],
    serve: ({ identity }) => ({ ok: true, ...identity }),
    response: daemonHealthSchema,
  }),
  shutdown: route({
    method: 'POST',
    path: '/shutdown',
    request: () => ({}),
    args: () => [],
    serve: ({ shutdown }) => {
      setImmediate(shutdown);
      return { ok: true };
    },
    response: shutdownAnswerSchema,
  }),
  sync: route({
    method: 'POST',
    path: '/sync',
    request: () => ({}),
    args: () => [],
    serve: ({ api }) => api.sync(),
    response: syncSummarySchema,
  }),
  skipped: route({
    method: 'GET',
    path: '/skipped',
    request: () => ({}),
    args: () => [],
    serve: ({ api }) => api.skipped(),
    response: v.array(skippedEntrySchema),
  }),
  collect: route({
    method: 'POST',
    path: '/collect',
    request: (olderThanMs) => ({ body: { olderThanMs } }),
    args: ({ body }) => [readNumber(body, 'olderThanMs')],
    serve: ({ api }, olderThanMs) => api.collect(olderThanMs),
    response: collectOutcomeSchema,
  }),
  agents: route({
    method: 'GET',
    path: '/agents',
    request: (filter = {}) => ({ query: { state: filter.state === undefined ? undefined : [filter.state].flat().join(',') } }),
    args: (input) => {
      const state = readStates(input.query('state'));
      return state === undefined ? [] : [{ state }];
    },
    serve: ({ api }, filter) => api.agents(filter),
    response: v.array(agentInfoSchema),
  }),
  createAgent: route({
    method: 'POST',
    path: '/agents',
    status: 201,
    maxBody: MAX_PROGRAM_BODY,
    request: (task, options, mode) => ({ body: { ...options, task, mode } }),
    args: ({ body }) => {
      const { task, options, mode } = readSpawnBody(body);
      return [task, options, mode];
    },
    serve: ({ api }, task, options, mode) => (mode === 'queue' ? api.queue(task, options) : api.spawn(task, options)),
    response: agentInfoSchema,
  }),
  agent: route({
    method: 'GET',
    path: '/agents/:id',
    request: onAgent,
    args: agentId,
    serve: ({ api }, id) => api.agent(id),
    response: agentInfoSchema,
  }),
  changes: route({
    method: 'GET',
    path: '/agents/:id/changes',
    request: onAgent,
    args: agentId,
    serve: ({ api }, id) => api.changes(id),
    response: v.array(changeInfoSchema),
  }),
  diff: route({
    method: 'GET',
    path: '/agents/:id/diff',
    request: (id, paths) => ({ params: { id }, query: { path: paths } }),
    args: (input) => [input.param('id'), input.queries('path')],
    serve: ({ api }, id, paths) => api.diff(id, paths),
    response: v.string(),
  }),
  proposed: route({
    method: 'GET',
    path: '/agents/:id/files',
    request: (id, path) => ({ params: { id }, query: { path } }),
    args: (input) => [input.param('id'), requiredPath(input)],
    serve: ({ api }, id, path) => api.proposed(id, path),
    response: v.nullable(v.string()),
  }),
  proposal: route({
    method: 'GET',
    path: '/agents/:id/proposal',
    request: (id, path) => ({ params: { id }, query: { path } }),
    args: (input) => [input.param('id'), requiredPath(input)],
    serve: ({ api }, id, path) => api.proposal(id, path),
    response: fileProposalSchema,
  }),
  accept: route({
    method: 'POST',
    path: '/agents/:id/accept',
    request: (id, options = {}) => ({ params: { id }, body: options }),
    args: (input) => [input.param('id'), readAcceptOptions(input.body)],
    serve: ({ api }, id, options) => api.accept(id, options),
    response: acceptOutcomeSchema,
  }),
  acceptMany: route({
    method: 'POST',
    path: '/accept',
    request: (ids, options = {}) => ({ body: { ...options, ids } }),
    args: ({ body }) => [readIds(body), readAcceptManyOptions(body)],
    serve: ({ api }, ids, options) => api.acceptMany(ids, options),
    response: acceptManyOutcomeSchema,
  }),
  undo: route({
    method: 'POST',
    path: '/agents/:id/undo',
    request: (id, options = {}) => ({ params: { id }, body: options }),
    args: (input) => {
      const force = readOptionalFlag(input.body, 'force');
      return [input.param('id'), force === undefined ? {} : { force }];
    },
    serve: ({ api }, id, options) => api.undo(id, options),
    response: undoOutcomeSchema,
  }),
  reject: route({
    method: 'POST',
    path: '/agents/:id/reject',
    request: (id, reason) => ({ params: { id }, body: { reason } }),
    args: (input) => [input.param('id'), readOptionalText(input.body, 'reason')],
    serve: ({ api }, id, reason) => api.reject(id, reason),
    response: agentInfoSchema,
  }),
  restore: route({
    method: 'POST',
    path: '/agents/:id/restore',
    request: onAgent,
    args: agentId,
    serve: ({ api }, id) => api.restore(id),
    response: agentInfoSchema,
  }),
  reply: route({
    method: 'POST',
    path: '/agents/:id/reply',
    request: (id, feedback) => ({ params: { id }, body: { feedback } }),
    args: (input) => [input.param('id'), readText(input.body, 'feedback')],
    serve: ({ api }, id, feedback) => api.reply(id, feedback),
    response: agentInfoSchema,
  }),
  replay: route({
    method: 'POST',
    path: '/agents/:id/replay',
    request: onAgent,
    args: agentId,
    serve: ({ api }, id) => api.replay(id),
    response: replayOutcomeSchema,
  }),
  review: route({
    method: 'POST',
    path: '/agents/:id/review',
    status: 201,
    maxBody: MAX_PROGRAM_BODY,
    request: (id, options = {}) => ({ params: { id }, body: options }),
    args: (input) => [input.param('id'), readReviewBody(input.body)],
    serve: ({ api }, id, options) => api.review(id, options),
    response: agentInfoSchema,
  }),
  journal: route({
    method: 'GET',
    path: '/agents/:id/journal',
    request: onAgent,
    args: agentId,
    serve: ({ api }, id) => api.journal(id),
    response: journalViewSchema,
  }),
  checks: route({
    method: 'GET',
    path: '/agents/:id/checks',
    request: onAgent,
    args: agentId,
    serve: ({ api }, id) => api.checks(id),
    response: v.array(checkResultInfoSchema),
  }),
  checkOutput: route({
    method: 'GET',
    path: '/agents/:id/checks/:name',
    request: (id, name) => ({ params: { id, name } }),
    args: (input) => [input.param('id'), input.param('name')],
    serve: ({ api }, id, name) => api.checkOutput(id, name),
    response: checkOutputSchema,
  }),
  runChecks: route({
    method: 'POST',
    path: '/agents/:id/checks/run',
    request: (id, names) => ({ params: { id }, body: { names } }),
    args: (input) => [input.param('id'), readOptionalTexts(input.body, 'names')],
    serve: ({ api }, id, names) => api.runChecks(id, names),
    response: v.array(checkResultInfoSchema),
  }),
  history: route({
    method: 'GET',
    path: '/agents/:id/history',
    request: (id, limit) => ({ params: { id }, query: { limit: limit === undefined ? undefined : String(limit) } }),
    args: (input) => [input.param('id'), readQueryNumber(input.query('limit'), 'limit')],
    serve: ({ api }, id, limit) => api.history(id, limit),
    response: v.array(cairnEventSchema),
  }),
  wait: route({
    method: 'GET',
    path: '/agents/:id/wait',
    request: (id, states) => ({ params: { id }, query: { state: states?.join(',') } }),
    args: (input) => [input.param('id'), readStates(input.query('state'))],
    serve: ({ api }, id, states) => api.wait(id, states),
    response: agentInfoSchema,
  }),
  inbox: route({
    method: 'GET',
    path: '/inbox',
    request: (options = {}) => ({ query: { all: options.all === true ? '1' : undefined } }),
    args: (input) => [{ all: readQueryFlag(input.query('all'), 'all') }],
    serve: ({ api }, options) => api.inbox(options),
    response: v.array(inboxThreadSchema),
  }),
  processInbox: route({
    method: 'POST',
    path: '/inbox/process',
    request: (options = {}) => ({ body: options }),
    args: ({ body }) => {
      const threads = readOptionalTexts(body, 'threads');
      return [threads === undefined ? {} : { threads }];
    },
    serve: ({ api }, options) => api.processInbox(options),
    response: inboxProcessOutcomeSchema,
  }),
  inboxLog: route({
    method: 'GET',
    path: '/inbox/log',
    request: (date) => ({ query: { date } }),
    args: (input) => [input.query('date')],
    serve: ({ api }, date) => api.inboxLog(date),
    response: inboxLogViewSchema,
  }),
};

/** The event stream: NDJSON, a `hello` line first, then one event a line until either side closes it. */
export const EVENT_STREAM = {
  method: 'GET',
  path: '/events',
  request: (options: EventOptions): WireRequest => ({ query: { agent: options.agentId } }),
  args: (input: WireInput): EventOptions => {
    const agentId = input.query('agent');
    return agentId === undefined ? {} : { agentId };
  },
  hello: helloLineSchema,
  event: cairnEventSchema,
} as const;

function requiredPath(input: WireInput): string {
  const path = input.query('path');
  if (path === undefined) throw new CairnError('CAIRN_INVALID_ARGUMENT', 'give the file with ?path=');
  return path;
}

function readAcceptOptions(body: Record<string, unknown>): AcceptOptions {
  const options: AcceptOptions = {};
  const paths = readOptionalTexts(body, 'paths');
  const force = readOptionalFlag(body, 'force');
  const partial = readOptionalFlag(body, 'partial');
  if (paths !== undefined) options.paths = paths;
  if (force !== undefined) options.force = force;
  if (partial !== undefined) options.partial = partial;
  return options;
}

function readIds(body: Record<string, unknown>): string[] {
  const ids = readOptionalTexts(body, 'ids');
  if (ids === undefined || ids.length === 0) throw new CairnError('CAIRN_INVALID_ARGUMENT', 'give the agents to accept as "ids"');
  return ids;
}

function readAcceptManyOptions(body: Record<string, unknown>): AcceptManyOptions {
  const options: AcceptManyOptions = readAcceptOptions(body);
  const keepGoing = readOptionalFlag(body, 'keepGoing');
  if (keepGoing !== undefined) options.keepGoing = keepGoing;
  return options;
}
