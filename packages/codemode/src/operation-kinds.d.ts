/** Types of operation-kinds.js for TypeScript importers (including packages that read these sources). */
export declare const OPERATION_KINDS: readonly ['query', 'view', 'report', 'command'];
