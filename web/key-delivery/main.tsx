// The key-delivery page of the Transactions service, at /key-delivery/<link id>#<secret>: a listed address
// proves itself with a mailed code, then the page decrypts the key in the browser. Every script, style sheet
// and font comes from this origin (see src/transactions/key-delivery/routes.ts).
import { mountThemed } from '../shared/boot.tsx';
import { KeyDelivery } from './key-delivery.tsx';

mountThemed('key-delivery', <KeyDelivery />);
