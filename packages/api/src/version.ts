/** Cairn's version, as the `cairn` command and the daemon report it. */
export const CAIRN_VERSION = '0.1.0';
