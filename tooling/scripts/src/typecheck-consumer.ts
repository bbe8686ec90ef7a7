/** Type-checks a consumer file against installed packages with the workspace's TypeScript. */
import { sep } from 'node:path';
import ts from 'typescript';

/**
 * Compiles `file` as a strict NodeNext consumer would, declaration files checked too, and returns
 * the diagnostics of the consumer and of every declaration file under `node_modules/<scope>/`
 * (third-party typings are not ours to judge, so they are left out, which also keeps this fast).
 */
export function typecheckConsumer(
  file: string,
  options: { scope: string; typeRoots: string[]; types?: string[] },
): string[] {
  const program = ts.createProgram([file], {
    target: ts.ScriptTarget.ES2022,
    lib: ['lib.es2023.d.ts'],
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    strict: true,
    noEmit: true,
    skipLibCheck: false,
    types: options.types ?? ['node'],
    typeRoots: options.typeRoots,
  });
  const ours = program
    .getSourceFiles()
    .filter(
      (sf) => sf.fileName === file || sf.fileName.includes(`${sep}node_modules${sep}${options.scope}${sep}`),
    );
  const diagnostics = [
    ...program.getOptionsDiagnostics(),
    ...program.getGlobalDiagnostics(),
    ...ours.flatMap((sf) => [...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf)]),
  ];
  return diagnostics.map((d) => {
    const text = ts.flattenDiagnosticMessageText(d.messageText, '\n');
    if (d.file === undefined || d.start === undefined) return `TS${d.code}: ${text}`;
    const { line, character } = d.file.getLineAndCharacterOfPosition(d.start);
    return `${d.file.fileName}:${line + 1}:${character + 1} TS${d.code}: ${text}`;
  });
}
