// A project's daemon: starting one, reaching one, and finding one that was killed.

export { daemonHoldsProject } from './daemon-lock.js';
export { type DaemonPidFile, readPidFile } from './pid-file.js';
export { type DaemonOptions, type RemoteOptions, type RunningDaemon, startDaemon } from './run-daemon.js';
export { connectDaemon, type DaemonClient } from './socket-client.js';
export { socketAnswers } from './socket-probe.js';
