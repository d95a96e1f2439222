/**
 * The types a typed GraphQL document carries, declared as `@graphql-typed-document-node/core` declares them: the
 * same structure, so every document GraphQL Code Generator (or another tool using that package) makes is taken as
 * it is, without that package, and the graphql-js it asks for as a peer, among the client's dependencies.
 */
export interface DocumentTypeDecoration<TResult, TVariables> {
  /** Never set: it carries the answer's and the variables' types. */
  __apiType?: (variables: TVariables) => TResult;
}

/** The answer's type of a typed document. */
export type ResultOf<T> = T extends { __apiType?: (variables: never) => infer TResult } ? TResult : never;

/** The variables' type of a typed document. */
export type VariablesOf<T> = T extends { __apiType?: (variables: infer TVariables) => unknown }
  ? TVariables
  : never;
