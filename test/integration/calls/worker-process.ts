/**
 * A calls service in a process of its own, configured from the environment, for the crash test:
 * the test SIGKILLs it in the middle of an analysis. Prints "ready <apiUrl>" once it serves.
 */
import { createCallsApp, startCallsService } from '../../../runtime/calls/app.js';
import { loadConfig } from '../../../runtime/config.js';
import { createLogger } from '../../../runtime/logger.js';
import { Platform } from '../../../runtime/platform/platform.js';
import { listen } from '../../helpers/calls/harness.js';

const config = loadConfig();
const platform = await Platform.open(config);
const service = await startCallsService(platform, { settings: config.calls, log: createLogger('silent') });
const { url } = await listen(createCallsApp(service));
process.stdout.write(`ready ${url}\n`);
