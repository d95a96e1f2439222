// Written by `npm run schemas` from docs/transactions.graphql and src/transactions/operations.graphql
// (codegen/transactions.ts); a test fails while it is stale.
import type { JsonValue } from '../transactions/json-value.ts';
import { TypedDocumentString } from '../transactions/typed-document-string.ts';
/** Internal type. DO NOT USE DIRECTLY. */
type Exact<T extends { [key: string]: unknown }> = { [K in keyof T]: T[K] };
/** Internal type. DO NOT USE DIRECTLY. */
export type Incremental<T> =
  T | { [P in keyof T]?: P extends ' $fragmentName' | '__typename' ? T[P] : never };
/** The order of a list by creation time; records created at the same instant keep the order they were written in. */
export type CreatedAtOrder =
  /** Oldest first. */
  | 'CREATED_AT_ASC'
  /** Newest first. */
  | 'CREATED_AT_DESC';

/** The events a webhook endpoint can receive. */
export type WebhookEventType =
  /** A transaction completed: every process that exists is complete (`transaction.completed`). */
  | 'TRANSACTION_COMPLETED'
  /** A transaction moved to another workflow state (`transaction.state_changed`). */
  | 'TRANSACTION_STATE_CHANGED'
  /** The organization voided a transaction, with its reason (`transaction.voided`). */
  | 'TRANSACTION_VOIDED';

/** Where a delivery stands. */
export type WebhookDeliveryStatus =
  /** Waiting for its next attempt. */
  | 'PENDING'
  /** A 2xx answer came back. */
  | 'DELIVERED'
  /** The retry schedule is spent, the endpoint answered 410, or it was disabled. */
  | 'FAILED';

/** A new webhook endpoint. */
export type CreateWebhookEndpointInput = {
  /** An https URL. */
  url: string;
  /** What it is for. */
  description?: string | null | undefined;
  /** The event types it receives (at least one). */
  eventTypes: Array<WebhookEventType>;
};

/** A new entity of your organization. */
export type CreateEntityInput = {
  /** The legal or display name, 1 to 200 characters. */
  name: string;
  /** The e-mail address notices go to. */
  email?: string | null | undefined;
  /** What kind of party it is. Default: COMPANY. */
  type?: EntityType | null | undefined;
  /** Free-form settings, a JSON object of at most 10 kB, e.g. `{"locale": "en-US"}`. */
  settings?: JsonValue | null | undefined;
};

/** Changes to an entity; fields left out stay as they are. */
export type UpdateEntityInput = {
  /** The entity. */
  id: string;
  /** A new name, 1 to 200 characters. */
  name?: string | null | undefined;
  /** A new e-mail address; null removes it. */
  email?: string | null | undefined;
  /** A new type. */
  type?: EntityType | null | undefined;
  /** New settings, replacing the old ones; null empties them. */
  settings?: JsonValue | null | undefined;
};

/** Changes to an endpoint; fields left out stay as they are. */
export type UpdateWebhookEndpointInput = {
  /** The endpoint. */
  id: string;
  /** A new https URL. */
  url?: string | null | undefined;
  /** A new description. */
  description?: string | null | undefined;
  /** New event types (at least one). */
  eventTypes?: Array<WebhookEventType> | null | undefined;
};

/** Names an endpoint. */
export type WebhookEndpointIdInput = {
  /** The endpoint. */
  id: string;
};

/** Names a delivery. */
export type ResendWebhookDeliveryInput = {
  /** The delivery. */
  id: string;
};

/** Names the failed deliveries to send again. */
export type ResendFailedWebhookDeliveriesInput = {
  /** The endpoint. */
  endpointId: string;
  /** The failed deliveries created at or after this time. */
  since: string;
};

/** What a new transaction is made from. */
export type CreateTransactionInput = {
  /** Data to prefill the transaction's items with, keyed by item vulcanKey; each value must fit its item's schema. */
  inputData?: JsonValue | null | undefined;
  /** The e-mail address of the primary recipient; notices go there. */
  noticeEmail: string;
  /** The name notices are addressed to (and the primary recipient's name if the e-mail is new). */
  noticeName: string;
  /** The entity of your organization that sends the transaction (see `viewer.entities`). */
  senderEntityId: string;
  /** The template (version) to follow (see `viewer.templates`). */
  templateId: string;
};

/** Which event to apply to which transaction. */
export type TriggerTransactionEventInput = {
  /** The transaction to move. */
  transactionId: string;
  /** The key of an event of the transaction's workflow. */
  eventKey: string;
  /**
   * What to tell the recipient with the event, at most 2000 characters: e.g. the changes asked for with a
   * request for changes. The recipient sees it on their page. Required by `void`: the reason for voiding.
   */
  message?: string | null | undefined;
  /** Preview the event instead of running it: the transaction is read and refused as it would be, nothing changes. */
  dryRun?: boolean | null | undefined;
};

/** Whose transmit token to replace. */
export type ResetTransmitTokenInput = {
  /** The transaction. */
  transactionId: string;
};

/** Which document to sign, and the signature. */
export type SignTransactionDocumentInput = {
  /** The transaction. */
  transactionId: string;
  /** The document's key in the template, e.g. `subscription_agreement`. */
  documentKey: string;
  /** The name of the person signing, as typed. */
  signedName: string;
  /** Must be true: the signer agrees to sign electronically. */
  consent: boolean;
};

/** Which file to link to, and for how long. */
export type GenTransactionFileLinkInput = {
  /** The id of a TransactionFile or of a TransactionSignatureFile. */
  transactionFileId: string;
  /** How long the link works, in seconds: 60 to 86400. Default 900 (15 minutes). */
  expiresInSeconds?: number | null | undefined;
};

/** Which transaction's evidence bundle to link to, and for how long. */
export type GenEvidenceBundleLinkInput = {
  /** The transaction. */
  transactionId: string;
  /** How long the link works, in seconds: 60 to 86400. Default 900 (15 minutes). */
  expiresInSeconds?: number | null | undefined;
};

/** What kind of party an entity is. */
export type EntityType =
  | 'INDIVIDUAL'
  /** Two or more people holding together. */
  | 'JOINT'
  | 'TRUST'
  | 'COMPANY'
  | 'PARTNERSHIP'
  | 'FUND'
  /** An IRA, 401(k) or similar account. */
  | 'RETIREMENT_ACCOUNT'
  | 'OTHER';

/** The state of a signature container. */
export type TransactionSignatureContainerState =
  /** Waiting for signatures. */
  | 'PENDING'
  /** Every required signature is made. */
  | 'COMPLETED'
  /** Withdrawn, e.g. because a new revision replaced the document. */
  | 'VOIDED';

export type EntityFragment = {
  id: string;
  name: string;
  email: string | null;
  settings: JsonValue;
  type: EntityType;
  createdAt: string;
  updatedAt: string;
};

export type FileFragment = {
  id: string;
  mimeType: string;
  extension: string;
  originalFilename: string;
  overrideFilename: string | null;
  createdAt: string;
  uploadedAt: string | null;
  signedUrl: string;
};

export type TemplateSummaryFragment = {
  id: string;
  key: string;
  version: number;
  name: string;
  description: string | null;
  createdAt: string;
};

export type TemplateFragment = {
  definition: JsonValue;
  id: string;
  key: string;
  version: number;
  name: string;
  description: string | null;
  createdAt: string;
  workflow: {
    initialState: string;
    states: Array<{ key: string; description: string | null; final: boolean; onEnter: Array<JsonValue> }>;
    events: Array<{
      key: string;
      description: string | null;
      from: Array<string>;
      to: string;
      guard: string | null;
    }>;
  };
};

export type TransactionItemFragment = {
  id: string;
  completionPercentage: number;
  createdAt: string;
  data: JsonValue | null;
  vulcanKey: string;
  transactionProcessRevisionId: string;
};

export type TransactionRecipientFragment = {
  id: string;
  vulcanKey: string;
  transactionId: string;
  createdAt: string;
  entity: {
    id: string;
    name: string;
    email: string | null;
    settings: JsonValue;
    type: EntityType;
    createdAt: string;
    updatedAt: string;
  };
};

export type TransactionFileFragment = {
  id: string;
  transactionId: string;
  vulcanKey: string;
  createdAt: string;
  file: {
    id: string;
    mimeType: string;
    extension: string;
    originalFilename: string;
    overrideFilename: string | null;
    createdAt: string;
    uploadedAt: string | null;
    signedUrl: string;
  };
  transactionRecipient: { id: string; vulcanKey: string } | null;
};

export type TransactionSignatureFileFragment = {
  id: string;
  transactionId: string;
  createdAt: string;
  file: {
    id: string;
    mimeType: string;
    extension: string;
    originalFilename: string;
    overrideFilename: string | null;
    createdAt: string;
    uploadedAt: string | null;
    signedUrl: string;
  };
  transactionSignatureContainer: {
    id: string;
    documentKey: string;
    state: TransactionSignatureContainerState;
    completedAt: string | null;
  };
};

export type TransactionFragment = {
  id: string;
  state: string;
  isComplete: boolean;
  createdAt: string;
  updatedAt: string;
  completedAt: string | null;
  voidedAt: string | null;
  voidReason: string | null;
  historyHead: string | null;
  inputData: JsonValue | null;
  noticeName: string;
  noticeEmail: string;
  template: {
    id: string;
    key: string;
    version: number;
    name: string;
    description: string | null;
    createdAt: string;
  };
  senderEntity: {
    id: string;
    name: string;
    email: string | null;
    settings: JsonValue;
    type: EntityType;
    createdAt: string;
    updatedAt: string;
  };
  availableEvents: Array<{
    key: string;
    description: string | null;
    from: Array<string>;
    to: string;
    guard: string | null;
    allowed: boolean;
    reason: string | null;
  }>;
  transactionRecipients: Array<{
    id: string;
    vulcanKey: string;
    transactionId: string;
    createdAt: string;
    entity: {
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    };
  }>;
  transactionProcesses: Array<{
    id: string;
    key: string;
    isComplete: boolean;
    createdAt: string;
    completedAt: string | null;
  }>;
  transactionProcessRevisions: Array<{
    id: string;
    transactionProcessId: string;
    number: number;
    createdAt: string;
    committedAt: string | null;
    context: JsonValue | null;
    transactionItems: Array<{
      id: string;
      completionPercentage: number;
      createdAt: string;
      data: JsonValue | null;
      vulcanKey: string;
      transactionProcessRevisionId: string;
    }>;
  }>;
  transactionFiles: Array<{
    id: string;
    transactionId: string;
    vulcanKey: string;
    createdAt: string;
    file: {
      id: string;
      mimeType: string;
      extension: string;
      originalFilename: string;
      overrideFilename: string | null;
      createdAt: string;
      uploadedAt: string | null;
      signedUrl: string;
    };
    transactionRecipient: { id: string; vulcanKey: string } | null;
  }>;
  transactionSignatureFiles: Array<{
    id: string;
    transactionId: string;
    createdAt: string;
    file: {
      id: string;
      mimeType: string;
      extension: string;
      originalFilename: string;
      overrideFilename: string | null;
      createdAt: string;
      uploadedAt: string | null;
      signedUrl: string;
    };
    transactionSignatureContainer: {
      id: string;
      documentKey: string;
      state: TransactionSignatureContainerState;
      completedAt: string | null;
    };
  }>;
};

export type WebhookEndpointFragment = {
  id: string;
  url: string;
  description: string | null;
  eventTypes: Array<WebhookEventType>;
  enabled: boolean;
  disabledAt: string | null;
  disabledReason: string | null;
  failingSince: string | null;
  createdAt: string;
  updatedAt: string;
};

export type WebhookDeliveryFragment = {
  id: string;
  messageId: string;
  eventType: WebhookEventType;
  payload: JsonValue;
  status: WebhookDeliveryStatus;
  attempts: number;
  nextAttemptAt: string;
  createdAt: string;
  lastAttemptAt: string | null;
  deliveredAt: string | null;
  endpoint: { id: string; url: string };
  attemptLog: Array<{
    id: string;
    attemptedAt: string;
    durationMs: number;
    statusCode: number | null;
    responseBody: string | null;
    error: string | null;
  }>;
};

export type OrganizationFragment = {
  id: string;
  handle: string;
  name: string;
  createdAt: string;
  templates: Array<{
    id: string;
    key: string;
    version: number;
    name: string;
    description: string | null;
    createdAt: string;
  }>;
  entities: Array<{
    id: string;
    name: string;
    email: string | null;
    settings: JsonValue;
    type: EntityType;
    createdAt: string;
    updatedAt: string;
  }>;
  webhookEndpoints: Array<{
    id: string;
    url: string;
    description: string | null;
    eventTypes: Array<WebhookEventType>;
    enabled: boolean;
    disabledAt: string | null;
    disabledReason: string | null;
    failingSince: string | null;
    createdAt: string;
    updatedAt: string;
  }>;
};

export type ViewerQueryVariables = Exact<{ [key: string]: never }>;

export type ViewerQuery = {
  viewer: {
    id: string;
    handle: string;
    name: string;
    createdAt: string;
    templates: Array<{
      id: string;
      key: string;
      version: number;
      name: string;
      description: string | null;
      createdAt: string;
    }>;
    entities: Array<{
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    }>;
    webhookEndpoints: Array<{
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    }>;
  };
};

export type OrganizationQueryVariables = Exact<{
  id: string;
}>;

export type OrganizationQuery = {
  organization: {
    id: string;
    handle: string;
    name: string;
    createdAt: string;
    templates: Array<{
      id: string;
      key: string;
      version: number;
      name: string;
      description: string | null;
      createdAt: string;
    }>;
    entities: Array<{
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    }>;
    webhookEndpoints: Array<{
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    }>;
  } | null;
};

export type TransactionsQueryVariables = Exact<{
  first?: number | null | undefined;
  after?: string | null | undefined;
  orderBy?: CreatedAtOrder | null | undefined;
}>;

export type TransactionsQuery = {
  viewer: {
    transactions: {
      totalCount: number;
      nodes: Array<{
        id: string;
        state: string;
        isComplete: boolean;
        createdAt: string;
        updatedAt: string;
        completedAt: string | null;
        noticeName: string;
        noticeEmail: string;
        template: { id: string; key: string; version: number };
      }>;
      pageInfo: { hasNextPage: boolean; endCursor: string | null };
    };
  };
};

export type EntityQueryVariables = Exact<{
  id: string;
}>;

export type EntityQuery = {
  entity: {
    id: string;
    name: string;
    email: string | null;
    settings: JsonValue;
    type: EntityType;
    createdAt: string;
    updatedAt: string;
  } | null;
};

export type TemplateQueryVariables = Exact<{
  id: string;
}>;

export type TemplateQuery = {
  template: {
    definition: JsonValue;
    id: string;
    key: string;
    version: number;
    name: string;
    description: string | null;
    createdAt: string;
    workflow: {
      initialState: string;
      states: Array<{ key: string; description: string | null; final: boolean; onEnter: Array<JsonValue> }>;
      events: Array<{
        key: string;
        description: string | null;
        from: Array<string>;
        to: string;
        guard: string | null;
      }>;
    };
  } | null;
};

export type TransactionQueryVariables = Exact<{
  id: string;
}>;

export type TransactionQuery = {
  transaction: {
    id: string;
    state: string;
    isComplete: boolean;
    createdAt: string;
    updatedAt: string;
    completedAt: string | null;
    voidedAt: string | null;
    voidReason: string | null;
    historyHead: string | null;
    inputData: JsonValue | null;
    noticeName: string;
    noticeEmail: string;
    template: {
      id: string;
      key: string;
      version: number;
      name: string;
      description: string | null;
      createdAt: string;
    };
    senderEntity: {
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    };
    availableEvents: Array<{
      key: string;
      description: string | null;
      from: Array<string>;
      to: string;
      guard: string | null;
      allowed: boolean;
      reason: string | null;
    }>;
    transactionRecipients: Array<{
      id: string;
      vulcanKey: string;
      transactionId: string;
      createdAt: string;
      entity: {
        id: string;
        name: string;
        email: string | null;
        settings: JsonValue;
        type: EntityType;
        createdAt: string;
        updatedAt: string;
      };
    }>;
    transactionProcesses: Array<{
      id: string;
      key: string;
      isComplete: boolean;
      createdAt: string;
      completedAt: string | null;
    }>;
    transactionProcessRevisions: Array<{
      id: string;
      transactionProcessId: string;
      number: number;
      createdAt: string;
      committedAt: string | null;
      context: JsonValue | null;
      transactionItems: Array<{
        id: string;
        completionPercentage: number;
        createdAt: string;
        data: JsonValue | null;
        vulcanKey: string;
        transactionProcessRevisionId: string;
      }>;
    }>;
    transactionFiles: Array<{
      id: string;
      transactionId: string;
      vulcanKey: string;
      createdAt: string;
      file: {
        id: string;
        mimeType: string;
        extension: string;
        originalFilename: string;
        overrideFilename: string | null;
        createdAt: string;
        uploadedAt: string | null;
        signedUrl: string;
      };
      transactionRecipient: { id: string; vulcanKey: string } | null;
    }>;
    transactionSignatureFiles: Array<{
      id: string;
      transactionId: string;
      createdAt: string;
      file: {
        id: string;
        mimeType: string;
        extension: string;
        originalFilename: string;
        overrideFilename: string | null;
        createdAt: string;
        uploadedAt: string | null;
        signedUrl: string;
      };
      transactionSignatureContainer: {
        id: string;
        documentKey: string;
        state: TransactionSignatureContainerState;
        completedAt: string | null;
      };
    }>;
  } | null;
};

export type WebhookEndpointQueryVariables = Exact<{
  id: string;
}>;

export type WebhookEndpointQuery = {
  webhookEndpoint: {
    id: string;
    url: string;
    description: string | null;
    eventTypes: Array<WebhookEventType>;
    enabled: boolean;
    disabledAt: string | null;
    disabledReason: string | null;
    failingSince: string | null;
    createdAt: string;
    updatedAt: string;
  } | null;
};

export type WebhookDeliveryQueryVariables = Exact<{
  id: string;
}>;

export type WebhookDeliveryQuery = {
  webhookDelivery: {
    id: string;
    messageId: string;
    eventType: WebhookEventType;
    payload: JsonValue;
    status: WebhookDeliveryStatus;
    attempts: number;
    nextAttemptAt: string;
    createdAt: string;
    lastAttemptAt: string | null;
    deliveredAt: string | null;
    endpoint: { id: string; url: string };
    attemptLog: Array<{
      id: string;
      attemptedAt: string;
      durationMs: number;
      statusCode: number | null;
      responseBody: string | null;
      error: string | null;
    }>;
  } | null;
};

export type TransactionItemQueryVariables = Exact<{
  id: string;
}>;

export type TransactionItemQuery = {
  transactionItem: {
    id: string;
    completionPercentage: number;
    createdAt: string;
    data: JsonValue | null;
    vulcanKey: string;
    transactionProcessRevisionId: string;
  } | null;
};

export type TransactionFileQueryVariables = Exact<{
  id: string;
}>;

export type TransactionFileQuery = {
  transactionFile: {
    id: string;
    transactionId: string;
    vulcanKey: string;
    createdAt: string;
    file: {
      id: string;
      mimeType: string;
      extension: string;
      originalFilename: string;
      overrideFilename: string | null;
      createdAt: string;
      uploadedAt: string | null;
      signedUrl: string;
    };
    transactionRecipient: { id: string; vulcanKey: string } | null;
  } | null;
};

export type TransactionSignatureFileQueryVariables = Exact<{
  id: string;
}>;

export type TransactionSignatureFileQuery = {
  transactionSignatureFile: {
    id: string;
    transactionId: string;
    createdAt: string;
    file: {
      id: string;
      mimeType: string;
      extension: string;
      originalFilename: string;
      overrideFilename: string | null;
      createdAt: string;
      uploadedAt: string | null;
      signedUrl: string;
    };
    transactionSignatureContainer: {
      id: string;
      documentKey: string;
      state: TransactionSignatureContainerState;
      completedAt: string | null;
    };
  } | null;
};

export type TransactionRecipientQueryVariables = Exact<{
  id: string;
}>;

export type TransactionRecipientQuery = {
  transactionRecipient: {
    id: string;
    vulcanKey: string;
    transactionId: string;
    createdAt: string;
    entity: {
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    };
  } | null;
};

export type FileQueryVariables = Exact<{
  id: string;
}>;

export type FileQuery = {
  file: {
    id: string;
    mimeType: string;
    extension: string;
    originalFilename: string;
    overrideFilename: string | null;
    createdAt: string;
    uploadedAt: string | null;
    signedUrl: string;
  };
};

export type CreateTransactionMutationVariables = Exact<{
  input: CreateTransactionInput;
}>;

export type CreateTransactionMutation = {
  createTransaction: { transactionId: string; transmitToken: string };
};

export type TriggerTransactionEventMutationVariables = Exact<{
  input: TriggerTransactionEventInput;
}>;

export type TriggerTransactionEventMutation = {
  triggerTransactionEvent: {
    sourceStateKey: string | null;
    targetStateKey: string;
    dryRun: boolean;
    preview: {
      eventKey: string;
      sourceStateKey: string;
      targetStateKey: string;
      actions: Array<JsonValue>;
      messageRequired: boolean;
      webhooks: Array<string>;
      completes: boolean | null;
      mails: Array<{ to: string; role: string; kind: string }>;
    } | null;
  };
};

export type SignTransactionDocumentMutationVariables = Exact<{
  input: SignTransactionDocumentInput;
}>;

export type SignTransactionDocumentMutation = {
  signTransactionDocument: { documentKey: string; state: TransactionSignatureContainerState };
};

export type ResetTransmitTokenMutationVariables = Exact<{
  input: ResetTransmitTokenInput;
}>;

export type ResetTransmitTokenMutation = {
  resetTransmitToken: { transactionId: string; transmitToken: string };
};

export type GenTransactionFileLinkMutationVariables = Exact<{
  input: GenTransactionFileLinkInput;
}>;

export type GenTransactionFileLinkMutation = {
  genTransactionFileLink: {
    url: string;
    expiresAt: string;
    file: {
      id: string;
      mimeType: string;
      extension: string;
      originalFilename: string;
      overrideFilename: string | null;
      createdAt: string;
      uploadedAt: string | null;
      signedUrl: string;
    };
  };
};

export type GenEvidenceBundleLinkMutationVariables = Exact<{
  input: GenEvidenceBundleLinkInput;
}>;

export type GenEvidenceBundleLinkMutation = {
  genEvidenceBundleLink: { url: string; expiresAt: string; transactionId: string; certificateMade: boolean };
};

export type CreateEntityMutationVariables = Exact<{
  input: CreateEntityInput;
}>;

export type CreateEntityMutation = {
  createEntity: {
    entity: {
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type UpdateEntityMutationVariables = Exact<{
  input: UpdateEntityInput;
}>;

export type UpdateEntityMutation = {
  updateEntity: {
    entity: {
      id: string;
      name: string;
      email: string | null;
      settings: JsonValue;
      type: EntityType;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type CreateWebhookEndpointMutationVariables = Exact<{
  input: CreateWebhookEndpointInput;
}>;

export type CreateWebhookEndpointMutation = {
  createWebhookEndpoint: {
    secret: string;
    webhookEndpoint: {
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type UpdateWebhookEndpointMutationVariables = Exact<{
  input: UpdateWebhookEndpointInput;
}>;

export type UpdateWebhookEndpointMutation = {
  updateWebhookEndpoint: {
    webhookEndpoint: {
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type DisableWebhookEndpointMutationVariables = Exact<{
  input: WebhookEndpointIdInput;
}>;

export type DisableWebhookEndpointMutation = {
  disableWebhookEndpoint: {
    webhookEndpoint: {
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type EnableWebhookEndpointMutationVariables = Exact<{
  input: WebhookEndpointIdInput;
}>;

export type EnableWebhookEndpointMutation = {
  enableWebhookEndpoint: {
    webhookEndpoint: {
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type DeleteWebhookEndpointMutationVariables = Exact<{
  input: WebhookEndpointIdInput;
}>;

export type DeleteWebhookEndpointMutation = { deleteWebhookEndpoint: { deletedWebhookEndpointId: string } };

export type RotateWebhookEndpointSecretMutationVariables = Exact<{
  input: WebhookEndpointIdInput;
}>;

export type RotateWebhookEndpointSecretMutation = {
  rotateWebhookEndpointSecret: {
    secret: string;
    webhookEndpoint: {
      id: string;
      url: string;
      description: string | null;
      eventTypes: Array<WebhookEventType>;
      enabled: boolean;
      disabledAt: string | null;
      disabledReason: string | null;
      failingSince: string | null;
      createdAt: string;
      updatedAt: string;
    };
  };
};

export type ResendWebhookDeliveryMutationVariables = Exact<{
  input: ResendWebhookDeliveryInput;
}>;

export type ResendWebhookDeliveryMutation = { resendWebhookDelivery: { count: number } };

export type ResendFailedWebhookDeliveriesMutationVariables = Exact<{
  input: ResendFailedWebhookDeliveriesInput;
}>;

export type ResendFailedWebhookDeliveriesMutation = { resendFailedWebhookDeliveries: { count: number } };

export const TemplateSummaryFragmentDoc = new TypedDocumentString(
  `
    fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
    `,
  { fragmentName: 'TemplateSummary' },
) as unknown as TypedDocumentString<TemplateSummaryFragment, unknown>;
export const TemplateFragmentDoc = new TypedDocumentString(
  `
    fragment Template on Template {
  ...TemplateSummary
  definition
  workflow {
    initialState
    states {
      key
      description
      final
      onEnter
    }
    events {
      key
      description
      from
      to
      guard
    }
  }
}
    fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}`,
  { fragmentName: 'Template' },
) as unknown as TypedDocumentString<TemplateFragment, unknown>;
export const EntityFragmentDoc = new TypedDocumentString(
  `
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
    `,
  { fragmentName: 'Entity' },
) as unknown as TypedDocumentString<EntityFragment, unknown>;
export const TransactionRecipientFragmentDoc = new TypedDocumentString(
  `
    fragment TransactionRecipient on TransactionRecipient {
  id
  vulcanKey
  transactionId
  createdAt
  entity {
    ...Entity
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}`,
  { fragmentName: 'TransactionRecipient' },
) as unknown as TypedDocumentString<TransactionRecipientFragment, unknown>;
export const TransactionItemFragmentDoc = new TypedDocumentString(
  `
    fragment TransactionItem on TransactionItem {
  id
  completionPercentage
  createdAt
  data
  vulcanKey
  transactionProcessRevisionId
}
    `,
  { fragmentName: 'TransactionItem' },
) as unknown as TypedDocumentString<TransactionItemFragment, unknown>;
export const FileFragmentDoc = new TypedDocumentString(
  `
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}
    `,
  { fragmentName: 'File' },
) as unknown as TypedDocumentString<FileFragment, unknown>;
export const TransactionFileFragmentDoc = new TypedDocumentString(
  `
    fragment TransactionFile on TransactionFile {
  id
  transactionId
  vulcanKey
  createdAt
  file {
    ...File
  }
  transactionRecipient {
    id
    vulcanKey
  }
}
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}`,
  { fragmentName: 'TransactionFile' },
) as unknown as TypedDocumentString<TransactionFileFragment, unknown>;
export const TransactionSignatureFileFragmentDoc = new TypedDocumentString(
  `
    fragment TransactionSignatureFile on TransactionSignatureFile {
  id
  transactionId
  createdAt
  file {
    ...File
  }
  transactionSignatureContainer {
    id
    documentKey
    state
    completedAt
  }
}
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}`,
  { fragmentName: 'TransactionSignatureFile' },
) as unknown as TypedDocumentString<TransactionSignatureFileFragment, unknown>;
export const TransactionFragmentDoc = new TypedDocumentString(
  `
    fragment Transaction on Transaction {
  id
  state
  isComplete
  createdAt
  updatedAt
  completedAt
  voidedAt
  voidReason
  historyHead
  inputData
  noticeName
  noticeEmail
  template {
    ...TemplateSummary
  }
  senderEntity {
    ...Entity
  }
  availableEvents {
    key
    description
    from
    to
    guard
    allowed
    reason
  }
  transactionRecipients {
    ...TransactionRecipient
  }
  transactionProcesses {
    id
    key
    isComplete
    createdAt
    completedAt
  }
  transactionProcessRevisions {
    id
    transactionProcessId
    number
    createdAt
    committedAt
    context
    transactionItems {
      ...TransactionItem
    }
  }
  transactionFiles {
    ...TransactionFile
  }
  transactionSignatureFiles {
    ...TransactionSignatureFile
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}
fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
fragment TransactionItem on TransactionItem {
  id
  completionPercentage
  createdAt
  data
  vulcanKey
  transactionProcessRevisionId
}
fragment TransactionRecipient on TransactionRecipient {
  id
  vulcanKey
  transactionId
  createdAt
  entity {
    ...Entity
  }
}
fragment TransactionFile on TransactionFile {
  id
  transactionId
  vulcanKey
  createdAt
  file {
    ...File
  }
  transactionRecipient {
    id
    vulcanKey
  }
}
fragment TransactionSignatureFile on TransactionSignatureFile {
  id
  transactionId
  createdAt
  file {
    ...File
  }
  transactionSignatureContainer {
    id
    documentKey
    state
    completedAt
  }
}`,
  { fragmentName: 'Transaction' },
) as unknown as TypedDocumentString<TransactionFragment, unknown>;
export const WebhookDeliveryFragmentDoc = new TypedDocumentString(
  `
    fragment WebhookDelivery on WebhookDelivery {
  id
  messageId
  eventType
  payload
  status
  attempts
  nextAttemptAt
  createdAt
  lastAttemptAt
  deliveredAt
  endpoint {
    id
    url
  }
  attemptLog {
    id
    attemptedAt
    durationMs
    statusCode
    responseBody
    error
  }
}
    `,
  { fragmentName: 'WebhookDelivery' },
) as unknown as TypedDocumentString<WebhookDeliveryFragment, unknown>;
export const WebhookEndpointFragmentDoc = new TypedDocumentString(
  `
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}
    `,
  { fragmentName: 'WebhookEndpoint' },
) as unknown as TypedDocumentString<WebhookEndpointFragment, unknown>;
export const OrganizationFragmentDoc = new TypedDocumentString(
  `
    fragment Organization on Organization {
  id
  handle
  name
  createdAt
  templates {
    ...TemplateSummary
  }
  entities {
    ...Entity
  }
  webhookEndpoints {
    ...WebhookEndpoint
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`,
  { fragmentName: 'Organization' },
) as unknown as TypedDocumentString<OrganizationFragment, unknown>;
export const ViewerDocument = new TypedDocumentString(`
    query Viewer {
  viewer {
    ...Organization
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}
fragment Organization on Organization {
  id
  handle
  name
  createdAt
  templates {
    ...TemplateSummary
  }
  entities {
    ...Entity
  }
  webhookEndpoints {
    ...WebhookEndpoint
  }
}`) as unknown as TypedDocumentString<ViewerQuery, ViewerQueryVariables>;
export const OrganizationDocument = new TypedDocumentString(`
    query Organization($id: uuid!) {
  organization(id: $id) {
    ...Organization
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}
fragment Organization on Organization {
  id
  handle
  name
  createdAt
  templates {
    ...TemplateSummary
  }
  entities {
    ...Entity
  }
  webhookEndpoints {
    ...WebhookEndpoint
  }
}`) as unknown as TypedDocumentString<OrganizationQuery, OrganizationQueryVariables>;
export const TransactionsDocument = new TypedDocumentString(`
    query Transactions($first: Int, $after: String, $orderBy: CreatedAtOrder) {
  viewer {
    transactions(first: $first, after: $after, orderBy: $orderBy) {
      nodes {
        id
        state
        isComplete
        createdAt
        updatedAt
        completedAt
        noticeName
        noticeEmail
        template {
          id
          key
          version
        }
      }
      pageInfo {
        hasNextPage
        endCursor
      }
      totalCount
    }
  }
}
    `) as unknown as TypedDocumentString<TransactionsQuery, TransactionsQueryVariables>;
export const EntityDocument = new TypedDocumentString(`
    query Entity($id: uuid!) {
  entity(id: $id) {
    ...Entity
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<EntityQuery, EntityQueryVariables>;
export const TemplateDocument = new TypedDocumentString(`
    query Template($id: uuid!) {
  template(id: $id) {
    ...Template
  }
}
    fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
fragment Template on Template {
  ...TemplateSummary
  definition
  workflow {
    initialState
    states {
      key
      description
      final
      onEnter
    }
    events {
      key
      description
      from
      to
      guard
    }
  }
}`) as unknown as TypedDocumentString<TemplateQuery, TemplateQueryVariables>;
export const TransactionDocument = new TypedDocumentString(`
    query Transaction($id: uuid!) {
  transaction(id: $id) {
    ...Transaction
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}
fragment TemplateSummary on Template {
  id
  key
  version
  name
  description
  createdAt
}
fragment TransactionItem on TransactionItem {
  id
  completionPercentage
  createdAt
  data
  vulcanKey
  transactionProcessRevisionId
}
fragment TransactionRecipient on TransactionRecipient {
  id
  vulcanKey
  transactionId
  createdAt
  entity {
    ...Entity
  }
}
fragment TransactionFile on TransactionFile {
  id
  transactionId
  vulcanKey
  createdAt
  file {
    ...File
  }
  transactionRecipient {
    id
    vulcanKey
  }
}
fragment TransactionSignatureFile on TransactionSignatureFile {
  id
  transactionId
  createdAt
  file {
    ...File
  }
  transactionSignatureContainer {
    id
    documentKey
    state
    completedAt
  }
}
fragment Transaction on Transaction {
  id
  state
  isComplete
  createdAt
  updatedAt
  completedAt
  voidedAt
  voidReason
  historyHead
  inputData
  noticeName
  noticeEmail
  template {
    ...TemplateSummary
  }
  senderEntity {
    ...Entity
  }
  availableEvents {
    key
    description
    from
    to
    guard
    allowed
    reason
  }
  transactionRecipients {
    ...TransactionRecipient
  }
  transactionProcesses {
    id
    key
    isComplete
    createdAt
    completedAt
  }
  transactionProcessRevisions {
    id
    transactionProcessId
    number
    createdAt
    committedAt
    context
    transactionItems {
      ...TransactionItem
    }
  }
  transactionFiles {
    ...TransactionFile
  }
  transactionSignatureFiles {
    ...TransactionSignatureFile
  }
}`) as unknown as TypedDocumentString<TransactionQuery, TransactionQueryVariables>;
export const WebhookEndpointDocument = new TypedDocumentString(`
    query WebhookEndpoint($id: uuid!) {
  webhookEndpoint(id: $id) {
    ...WebhookEndpoint
  }
}
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<WebhookEndpointQuery, WebhookEndpointQueryVariables>;
export const WebhookDeliveryDocument = new TypedDocumentString(`
    query WebhookDelivery($id: uuid!) {
  webhookDelivery(id: $id) {
    ...WebhookDelivery
  }
}
    fragment WebhookDelivery on WebhookDelivery {
  id
  messageId
  eventType
  payload
  status
  attempts
  nextAttemptAt
  createdAt
  lastAttemptAt
  deliveredAt
  endpoint {
    id
    url
  }
  attemptLog {
    id
    attemptedAt
    durationMs
    statusCode
    responseBody
    error
  }
}`) as unknown as TypedDocumentString<WebhookDeliveryQuery, WebhookDeliveryQueryVariables>;
export const TransactionItemDocument = new TypedDocumentString(`
    query TransactionItem($id: uuid!) {
  transactionItem(id: $id) {
    ...TransactionItem
  }
}
    fragment TransactionItem on TransactionItem {
  id
  completionPercentage
  createdAt
  data
  vulcanKey
  transactionProcessRevisionId
}`) as unknown as TypedDocumentString<TransactionItemQuery, TransactionItemQueryVariables>;
export const TransactionFileDocument = new TypedDocumentString(`
    query TransactionFile($id: uuid!) {
  transactionFile(id: $id) {
    ...TransactionFile
  }
}
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}
fragment TransactionFile on TransactionFile {
  id
  transactionId
  vulcanKey
  createdAt
  file {
    ...File
  }
  transactionRecipient {
    id
    vulcanKey
  }
}`) as unknown as TypedDocumentString<TransactionFileQuery, TransactionFileQueryVariables>;
export const TransactionSignatureFileDocument = new TypedDocumentString(`
    query TransactionSignatureFile($id: uuid!) {
  transactionSignatureFile(id: $id) {
    ...TransactionSignatureFile
  }
}
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}
fragment TransactionSignatureFile on TransactionSignatureFile {
  id
  transactionId
  createdAt
  file {
    ...File
  }
  transactionSignatureContainer {
    id
    documentKey
    state
    completedAt
  }
}`) as unknown as TypedDocumentString<TransactionSignatureFileQuery, TransactionSignatureFileQueryVariables>;
export const TransactionRecipientDocument = new TypedDocumentString(`
    query TransactionRecipient($id: uuid!) {
  transactionRecipient(id: $id) {
    ...TransactionRecipient
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}
fragment TransactionRecipient on TransactionRecipient {
  id
  vulcanKey
  transactionId
  createdAt
  entity {
    ...Entity
  }
}`) as unknown as TypedDocumentString<TransactionRecipientQuery, TransactionRecipientQueryVariables>;
export const FileDocument = new TypedDocumentString(`
    query File($id: UUID!) {
  file(id: $id) {
    ...File
  }
}
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}`) as unknown as TypedDocumentString<FileQuery, FileQueryVariables>;
export const CreateTransactionDocument = new TypedDocumentString(`
    mutation CreateTransaction($input: CreateTransactionInput!) {
  createTransaction(input: $input) {
    transactionId
    transmitToken
  }
}
    `) as unknown as TypedDocumentString<CreateTransactionMutation, CreateTransactionMutationVariables>;
export const TriggerTransactionEventDocument = new TypedDocumentString(`
    mutation TriggerTransactionEvent($input: TriggerTransactionEventInput!) {
  triggerTransactionEvent(input: $input) {
    sourceStateKey
    targetStateKey
    dryRun
    preview {
      eventKey
      sourceStateKey
      targetStateKey
      actions
      messageRequired
      mails {
        to
        role
        kind
      }
      webhooks
      completes
    }
  }
}
    `) as unknown as TypedDocumentString<
  TriggerTransactionEventMutation,
  TriggerTransactionEventMutationVariables
>;
export const SignTransactionDocumentDocument = new TypedDocumentString(`
    mutation SignTransactionDocument($input: SignTransactionDocumentInput!) {
  signTransactionDocument(input: $input) {
    documentKey
    state
  }
}
    `) as unknown as TypedDocumentString<
  SignTransactionDocumentMutation,
  SignTransactionDocumentMutationVariables
>;
export const ResetTransmitTokenDocument = new TypedDocumentString(`
    mutation ResetTransmitToken($input: ResetTransmitTokenInput!) {
  resetTransmitToken(input: $input) {
    transactionId
    transmitToken
  }
}
    `) as unknown as TypedDocumentString<ResetTransmitTokenMutation, ResetTransmitTokenMutationVariables>;
export const GenTransactionFileLinkDocument = new TypedDocumentString(`
    mutation GenTransactionFileLink($input: GenTransactionFileLinkInput!) {
  genTransactionFileLink(input: $input) {
    url
    expiresAt
    file {
      ...File
    }
  }
}
    fragment File on File {
  id
  mimeType
  extension
  originalFilename
  overrideFilename
  createdAt
  uploadedAt
  signedUrl
}`) as unknown as TypedDocumentString<
  GenTransactionFileLinkMutation,
  GenTransactionFileLinkMutationVariables
>;
export const GenEvidenceBundleLinkDocument = new TypedDocumentString(`
    mutation GenEvidenceBundleLink($input: GenEvidenceBundleLinkInput!) {
  genEvidenceBundleLink(input: $input) {
    url
    expiresAt
    transactionId
    certificateMade
  }
}
    `) as unknown as TypedDocumentString<
  GenEvidenceBundleLinkMutation,
  GenEvidenceBundleLinkMutationVariables
>;
export const CreateEntityDocument = new TypedDocumentString(`
    mutation CreateEntity($input: CreateEntityInput!) {
  createEntity(input: $input) {
    entity {
      ...Entity
    }
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateEntityMutation, CreateEntityMutationVariables>;
export const UpdateEntityDocument = new TypedDocumentString(`
    mutation UpdateEntity($input: UpdateEntityInput!) {
  updateEntity(input: $input) {
    entity {
      ...Entity
    }
  }
}
    fragment Entity on Entity {
  id
  name
  email
  settings
  type
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateEntityMutation, UpdateEntityMutationVariables>;
export const CreateWebhookEndpointDocument = new TypedDocumentString(`
    mutation CreateWebhookEndpoint($input: CreateWebhookEndpointInput!) {
  createWebhookEndpoint(input: $input) {
    webhookEndpoint {
      ...WebhookEndpoint
    }
    secret
  }
}
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<CreateWebhookEndpointMutation, CreateWebhookEndpointMutationVariables>;
export const UpdateWebhookEndpointDocument = new TypedDocumentString(`
    mutation UpdateWebhookEndpoint($input: UpdateWebhookEndpointInput!) {
  updateWebhookEndpoint(input: $input) {
    webhookEndpoint {
      ...WebhookEndpoint
    }
  }
}
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<UpdateWebhookEndpointMutation, UpdateWebhookEndpointMutationVariables>;
export const DisableWebhookEndpointDocument = new TypedDocumentString(`
    mutation DisableWebhookEndpoint($input: WebhookEndpointIdInput!) {
  disableWebhookEndpoint(input: $input) {
    webhookEndpoint {
      ...WebhookEndpoint
    }
  }
}
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<
  DisableWebhookEndpointMutation,
  DisableWebhookEndpointMutationVariables
>;
export const EnableWebhookEndpointDocument = new TypedDocumentString(`
    mutation EnableWebhookEndpoint($input: WebhookEndpointIdInput!) {
  enableWebhookEndpoint(input: $input) {
    webhookEndpoint {
      ...WebhookEndpoint
    }
  }
}
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<EnableWebhookEndpointMutation, EnableWebhookEndpointMutationVariables>;
export const DeleteWebhookEndpointDocument = new TypedDocumentString(`
    mutation DeleteWebhookEndpoint($input: WebhookEndpointIdInput!) {
  deleteWebhookEndpoint(input: $input) {
    deletedWebhookEndpointId
  }
}
    `) as unknown as TypedDocumentString<
  DeleteWebhookEndpointMutation,
  DeleteWebhookEndpointMutationVariables
>;
export const RotateWebhookEndpointSecretDocument = new TypedDocumentString(`
    mutation RotateWebhookEndpointSecret($input: WebhookEndpointIdInput!) {
  rotateWebhookEndpointSecret(input: $input) {
    webhookEndpoint {
      ...WebhookEndpoint
    }
    secret
  }
}
    fragment WebhookEndpoint on WebhookEndpoint {
  id
  url
  description
  eventTypes
  enabled
  disabledAt
  disabledReason
  failingSince
  createdAt
  updatedAt
}`) as unknown as TypedDocumentString<
  RotateWebhookEndpointSecretMutation,
  RotateWebhookEndpointSecretMutationVariables
>;
export const ResendWebhookDeliveryDocument = new TypedDocumentString(`
    mutation ResendWebhookDelivery($input: ResendWebhookDeliveryInput!) {
  resendWebhookDelivery(input: $input) {
    count
  }
}
    `) as unknown as TypedDocumentString<
  ResendWebhookDeliveryMutation,
  ResendWebhookDeliveryMutationVariables
>;
export const ResendFailedWebhookDeliveriesDocument = new TypedDocumentString(`
    mutation ResendFailedWebhookDeliveries($input: ResendFailedWebhookDeliveriesInput!) {
  resendFailedWebhookDeliveries(input: $input) {
    count
  }
}
    `) as unknown as TypedDocumentString<
  ResendFailedWebhookDeliveriesMutation,
  ResendFailedWebhookDeliveriesMutationVariables
>;
