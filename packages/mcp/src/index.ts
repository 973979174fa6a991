// `cairn mcp`: an MCP server whose environments are Cairn agents, and the clients' configurations for it.
export { type ClientConfig, clientConfig, MCP_CLIENTS, type McpClient, type ServerLaunch, writeClientConfig } from './client-config.js';
export { LineTransport, MAX_MESSAGE_BYTES } from './line-transport.js';
export { type McpServeOptions, serveMcp } from './mcp-server.js';
export { toolList } from './tool-list.js';
