export { clusterBinariesAvailable } from './binaries.js';
export { type Nginx, startNginx } from './nginx.js';
export { freePort } from './ports.js';
export { type RedisServer, startRedisServer } from './redis-server.js';
