import type { DocumentTypeDecoration } from './document-types.ts';

/**
 * A GraphQL document as its source text, carrying the types of its answer and variables: what GraphQL Code
 * Generator's `typed-document-node` plugin makes with `documentMode: 'string'`. Sending it needs no graphql-js,
 * so the client stays small in a browser. The generated operations of this package are instances; an integrator
 * may also write one by hand for `TransactionsClient.request`.
 *
 * @example
 * const Ids = new TypedDocumentString<{ viewer: { id: string } }, Record<string, never>>('{ viewer { id } }');
 * const { viewer } = await client.request(Ids);
 */
export class TypedDocumentString<TResult, TVariables>
  extends String
  implements DocumentTypeDecoration<TResult, TVariables>
{
  declare __apiType?: NonNullable<DocumentTypeDecoration<TResult, TVariables>['__apiType']>;
  readonly #value: string;
  /** What the generator knows of the document (e.g. a fragment's name); unused when sending. */
  readonly __meta__?: Record<string, unknown> | undefined;

  constructor(value: string, meta?: Record<string, unknown>) {
    super(value);
    this.#value = value;
    this.__meta__ = meta;
  }

  override toString(): string & DocumentTypeDecoration<TResult, TVariables> {
    return this.#value;
  }
}
