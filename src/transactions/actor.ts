/** Who causes a change: an integrator's API key, a recipient, or Portico itself. */
export interface Actor {
  type: 'api_key' | 'recipient' | 'system';
  id: string | null;
}
