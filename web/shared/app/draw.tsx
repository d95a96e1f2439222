// Draws a signed-in page on the server (src/http/drawing/page-drawing.ts runs it in a worker thread): the same app the
// browser runs, on the answers the server read for the person, in their language, time zone and appearance.
// Its HTML goes in the page, so a phone paints the page's words before any script has come; the app then renders
// over them (web/shared/boot.tsx, `mount`).
import { renderToStringAsync } from 'preact-render-to-string';
import type { VNode } from 'preact';
import { StrictMode, type ReactNode } from 'react';
import { StaticRouter } from 'react-router';
import { PorticoTheme } from '../boot.tsx';
import { setReader } from '../format.ts';
import type { DrawRequest } from '../../../src/http/drawing/drawing-contract.ts';
import { answerEarly, forgetEarly } from './early-reads.ts';

/**
 * Draws a surface's page at `request.path` to HTML: its app (`app`, inside the session's provider) under the router
 * at the surface's path (`basename`, e.g. `/console`), in Portico's theme, as its `mount.tsx` renders it in the
 * browser, with the request's answers taken by its reads as the browser's render takes them from the early reads.
 * A worker draws one page at a time; the answers are forgotten after it.
 */
export async function drawSurface(basename: string, app: ReactNode, request: DrawRequest): Promise<string> {
  forgetEarly();
  // A reader whose time zone is not known reads the times in UTC, not in the server's zone.
  setReader({ locale: request.reader.locale, timeZone: request.reader.timeZone ?? 'UTC' });
  for (const [url, data] of Object.entries(request.answers)) answerEarly(url, data, { kept: true });
  try {
    const tree = (
      <StrictMode>
        <PorticoTheme drawn={request.reader.scheme}>
          <StaticRouter basename={basename} location={`${basename}${request.path}`}>
            {app}
          </StaticRouter>
        </PorticoTheme>
      </StrictMode>
    );
    return await renderToStringAsync(tree as VNode);
  } finally {
    forgetEarly();
  }
}
