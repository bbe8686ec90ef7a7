/** Types of operation-kinds.js for TypeScript importers (including packages that read these sources). */
// `@public` on each: knip resolves `./*.js` imports to the .js file, so it sees no importer of these declarations.
/** @public */
export declare const OPERATION_KINDS: readonly ['query', 'view', 'report', 'command'];
