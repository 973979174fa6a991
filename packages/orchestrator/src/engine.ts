// What the coordinator, the workers and the daemon (@cairn/remote, @cairn/daemon) build on: running an agent,
// its records and workspace, its governance, the journal's entries, and how a project is wired to a dispatcher.
// An agent's database is `@cairn/workspace`'s, its governance `@cairn/governance`'s.
// A script that drives Cairn uses the root entry (`openProject`, the `CairnApi`) instead.

export { runAgent } from './agents/agent-runner.js';
export type { AgentPatch, AgentRecord } from './agents/agent-store.js';
export type { AgentFiles, ProjectCore } from './agents/project-core.js';
export { submitProposal } from './agents/submit-proposal.js';
export { type InboxWatcher, watchInbox } from './inbox/inbox-watcher.js';
export { contentDigest } from './programs/program-run.js';
export { type AgentDispatch, wireProject } from './project/open-project.js';
export type { ProjectParts } from './project/project.js';
export { replayRecorded } from './replay/replay.js';
export { CheckRefused } from './run/check-adapter.js';
export type { ProjectWatcher } from './sync/watcher.js';
