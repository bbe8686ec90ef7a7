/** The four operation kinds, shared by the runner, the worker and the guest shim. */
export const OPERATION_KINDS = Object.freeze(/** @type {const} */ (['query', 'view', 'report', 'command']));
