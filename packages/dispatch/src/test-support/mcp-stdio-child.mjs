/** A child process serving a ContractServer over its own stdio (the built package, as users run it). */
import { InputRequired, stdio } from '../../dist/index.js';
import { ContractServer } from '../../dist/node.js';

const server = new ContractServer();
let greeted;
const greetedOnce = new Promise((resolve) => {
  greeted = resolve;
});
server.registerTool(
  'greet',
  'Greets',
  { properties: { name: { type: 'string' } }, required: ['name'] },
  (args) => {
    console.log('console.log from the handler');
    greeted();
    return `Hello, ${args.name}!`;
  },
);
server.registerTool('slow', 'Answers after greet was called', {}, async () => {
  await greetedOnce;
  await new Promise((resolve) => setTimeout(resolve, 50));
  return 'slow';
});
server.registerTool('confirm', 'Asks first', {}, (_args, inputResponses) => {
  if (inputResponses?.ok !== true)
    throw new InputRequired({ ok: { method: 'elicitation/create', params: { message: 'ok?' } } });
  return 'confirmed';
});
// Answers still running when stdin ends are finished and written (a script pipes its requests in).
const served = await server.connect(stdio({ halfCloseDrainMs: 10_000 }));
await served.closed;
console.error('stdin ended, exiting');
