// The console's pages as the server draws them (web/shared/app/draw.tsx): its app at an address, with the
// session and the page's first reads answered. Built for Node into web/dist/console/drawing/ (web/build.ts).
import type { DrawRequest } from '../../src/http/drawing/drawing-contract.ts';
import { drawSurface } from '../shared/app/draw.tsx';
import { App } from './app.tsx';
import { SessionProvider } from './session.tsx';

/** The console's page at `request.path`, drawn to HTML. */
export function draw(request: DrawRequest): Promise<string> {
  return drawSurface(
    '/console',
    <SessionProvider>
      <App />
    </SessionProvider>,
    request,
  );
}
