/** Entry point of the `rampart` command. */
import { buildProgram, reportError } from './cli/program.js';

buildProgram().parseAsync(process.argv).catch(reportError);
