import type { Response } from 'express';
import type { Principal } from '../auth.js';

/** The caller authenticated by the app's auth middleware; routes behind it always have one. */
export function principalOf(res: Response): Principal {
  return res.locals.principal as Principal;
}
