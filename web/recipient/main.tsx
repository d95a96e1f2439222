// The recipient portal of the Transactions service, at /r/<token>: an invited recipient (a fund's investor)
// fills in, uploads, signs and submits. Every script, style sheet and font comes from this origin (see
// src/transactions/recipients/page-route.ts).
import { mountThemed } from '../shared/boot.tsx';
import './recipient.css';
import { BrowserRouter } from 'react-router';
import { App } from './app.tsx';

mountThemed(
  'recipient',
  <BrowserRouter basename="/r">
    <App />
  </BrowserRouter>,
);
