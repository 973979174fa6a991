// A project's daemon: starting one, reaching one, and finding one that was killed.
export { readPidFile, type DaemonPidFile } from './pid-file.js';
export { startDaemon, type RunningDaemon, type DaemonOptions, type RemoteOptions } from './run-daemon.js';
export { daemonHoldsProject } from './daemon-lock.js';
export { connectDaemon, type DaemonClient } from './socket-client.js';
export { socketAnswers } from './socket-probe.js';
