/** The runtime (value) names a package's TypeScript entry files declare, read with the compiler API. */
import ts from 'typescript';

/** For each entry file: the exported names that exist at runtime (types and `export type` left out). */
export function declaredValueExports(
  entryFiles: readonly string[],
  types: readonly string[] = ['node'],
): Map<string, string[]> {
  const program = ts.createProgram(entryFiles, {
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    customConditions: ['@agentd/source'],
    allowImportingTsExtensions: true,
    noEmit: true,
    skipLibCheck: true,
    types: [...types],
  });
  const checker = program.getTypeChecker();
  const result = new Map<string, string[]>();
  for (const file of entryFiles) {
    const source = program.getSourceFile(file);
    const moduleSymbol = source && checker.getSymbolAtLocation(source);
    if (moduleSymbol === undefined) {
      result.set(file, []);
      continue;
    }
    const names = checker
      .getExportsOfModule(moduleSymbol)
      .filter((symbol) => isRuntimeExport(symbol, checker))
      .map((symbol) => symbol.getName());
    result.set(file, names.sort());
  }
  return result;
}

function isRuntimeExport(symbol: ts.Symbol, checker: ts.TypeChecker): boolean {
  if (!(symbol.flags & ts.SymbolFlags.Alias)) return (symbol.flags & ts.SymbolFlags.Value) !== 0;
  const declaration = symbol.declarations?.[0];
  if (declaration !== undefined && ts.isExportSpecifier(declaration)) {
    if (declaration.isTypeOnly || declaration.parent.parent.isTypeOnly) return false;
  }
  return (checker.getAliasedSymbol(symbol).flags & ts.SymbolFlags.Value) !== 0;
}
