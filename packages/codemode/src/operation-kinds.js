/** The four operation kinds (myko-style), shared by the runner, the worker and the guest shim. */
export const OPERATION_KINDS = Object.freeze(/** @type {const} */ (['query', 'view', 'report', 'command']));
