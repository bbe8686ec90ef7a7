export {
  type ClusterBinary,
  clusterBinariesAvailable,
  findBinary,
  type GateOptions,
  INSTALL_COMMAND,
  requireBinary,
} from './binaries.js';
export { type Nginx, type NginxOptions, startNginx } from './nginx.js';
export { type NginxConfigOptions, renderNginxConfig } from './nginx-config.js';
export { freePort, waitForPort } from './ports.js';
export { type RedisServer, type RedisServerOptions, startRedisServer } from './redis-server.js';
