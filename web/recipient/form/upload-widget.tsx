// A field answered by a file (a W-9, a passport scan): the file uploaded so far, a way to choose or replace it
// (button, or dropping it here), the upload's progress, and what is wrong with a refused file, in words.

import { CheckCircledIcon, FileTextIcon, UploadIcon } from '@radix-ui/react-icons';
import type { WidgetProps } from '@rjsf/utils';
import { Button, Card, Flex, Progress, Text } from '@radix-ui/themes';
import { useEffect, useRef, useState, type DragEvent } from 'react';
import { ApiError } from '../../shared/api-error.ts';
import { acceptAttribute, claimedKind, formatBytes, formatDateTime, kindOf, listKinds } from '../format.ts';
import type { UploadRule } from '../types.ts';
import { describedBy, portalContext, showsError } from './form-context.ts';
import type { UploadOptions } from './ui-schema.ts';

type Upload =
  | { state: 'idle' }
  | { state: 'sending'; name: string; fraction: number; abort: AbortController }
  | { state: 'refused'; message: string }
  | { state: 'sent'; name: string };

/** What is wrong with a file before it is sent (empty, too large), or undefined. */
function problemBeforeSending(file: File, rule: UploadRule): string | undefined {
  if (file.size === 0)
    return `“${file.name}” is empty (0 bytes). Choose the file again, or another copy of it.`;
  if (file.size > rule.maxBytes) {
    return `This file is ${formatBytes(file.size)}; the limit is ${formatBytes(rule.maxBytes)}. Upload a smaller copy (a PDF at a lower resolution, or a photo of each page).`;
  }
  return undefined;
}

/** What the server's refusal of `file` means for the recipient. */
function refusal(error: ApiError, file: File, rule: UploadRule): string {
  const kinds = listKinds(
    Array.isArray(error.details.accept) ? (error.details.accept as string[]) : rule.accept,
  );
  switch (error.code) {
    case 'FILE_TOO_LARGE': {
      const limit = typeof error.details.maxBytes === 'number' ? error.details.maxBytes : rule.maxBytes;
      return `This file is ${formatBytes(file.size)}; the limit is ${formatBytes(limit)}. Upload a smaller copy.`;
    }
    case 'FILE_TYPE_NOT_ALLOWED': {
      const claimed = claimedKind(file.name, rule.accept);
      if (claimed !== undefined)
        return `This file is not a ${claimed}, whatever its name says. Upload a ${kinds}.`;
      const detected =
        typeof error.details.detected === 'string' ? kindOf(error.details.detected) : undefined;
      return detected === undefined
        ? `This kind of file cannot be used here. Upload a ${kinds}.`
        : `This file is a ${detected}. Upload a ${kinds}.`;
    }
    case 'FILE_EMPTY':
      return `“${file.name}” is empty (0 bytes). Choose the file again, or another copy of it.`;
    case 'FILENAME_INVALID': {
      const said = error.message.trim().replace(/([^.])$/, '$1.');
      return said.charAt(0).toUpperCase() + said.slice(1);
    }
    case 'REVISION_SUBMITTED':
      return 'Your answers were submitted already, so this file can no longer change. Reload the page to see them.';
    default:
      return error.requestId === undefined ? error.message : `${error.message} (request ${error.requestId})`;
  }
}

/**
 * The upload widget (`ui:widget: upload`, see ui-schema.ts): its value is the id of the uploaded file. The file
 * input is visually hidden but focusable, named by the field's label and "Choose a file"; the button beside it
 * is its label, ringed when it has the focus.
 */
export function UploadWidget(props: WidgetProps) {
  const { id, disabled, readonly, onChange, options, registry } = props;
  const value: unknown = props.value;
  const context = portalContext(registry);
  const { uploadField, upload: rule } = options as unknown as UploadOptions;
  const [upload, setUpload] = useState<Upload>({ state: 'idle' });
  const [dragging, setDragging] = useState(false);
  const input = useRef<HTMLInputElement>(null);
  const inFlight = useRef<AbortController>(undefined);
  const current = context.files.find((file) => file.id === value);
  const sending = upload.state === 'sending' ? upload : undefined;

  // Leaving the step stops an upload on its way.
  useEffect(
    () => () => {
      inFlight.current?.abort();
    },
    [],
  );

  const send = async (file: File) => {
    const before = problemBeforeSending(file, rule);
    if (before !== undefined) {
      setUpload({ state: 'refused', message: before });
      return;
    }
    const abort = new AbortController();
    inFlight.current = abort;
    setUpload({ state: 'sending', name: file.name, fraction: 0, abort });
    try {
      const answer = await context.upload(
        uploadField,
        file,
        (fraction) => {
          setUpload((now) => (now.state === 'sending' && now.abort === abort ? { ...now, fraction } : now));
        },
        abort.signal,
      );
      context.uploaded(answer);
      onChange(answer.file.id);
      setUpload({ state: 'sent', name: answer.file.originalFilename });
    } catch (error) {
      if (abort.signal.aborted) {
        setUpload({ state: 'idle' });
        return;
      }
      if (!(error instanceof ApiError)) throw error;
      setUpload({ state: 'refused', message: refusal(error, file, rule) });
    } finally {
      if (input.current) input.current.value = '';
    }
  };

  const drop = (event: DragEvent<HTMLElement>) => {
    event.preventDefault();
    setDragging(false);
    const file = event.dataTransfer.files[0];
    if (file && !disabled && !readonly && !sending) void send(file);
  };

  const fieldError = showsError(props) && upload.state !== 'refused';
  const described = [
    describedBy(props),
    `${id}__rule`,
    upload.state === 'refused' ? `${id}__refusal` : undefined,
  ]
    .filter(Boolean)
    .join(' ');

  return (
    <Card
      size="2"
      variant="surface"
      className={`upload-field${dragging ? ' upload-dragging' : ''}${fieldError || upload.state === 'refused' ? ' upload-invalid' : ''}`}
      onDragOver={(event) => {
        event.preventDefault();
        setDragging(true);
      }}
      onDragLeave={() => {
        setDragging(false);
      }}
      onDrop={drop}
    >
      <Flex direction="column" gap="3">
        {current ? (
          <Flex gap="3" align="start">
            <FileTextIcon width="20" height="20" aria-hidden className="upload-file-icon" />
            <Flex direction="column" minWidth="0">
              <Text size="2" weight="medium" className="break-all">
                {current.originalFilename}
              </Text>
              <Text size="1" color="gray">
                {kindOf(current.mimeType)}, {formatBytes(current.byteSize)} · uploaded{' '}
                {formatDateTime(current.uploadedAt)}
              </Text>
            </Flex>
          </Flex>
        ) : value ? (
          <Text size="2">A file is attached.</Text>
        ) : (
          <Text size="2" color="gray">
            No file yet.
          </Text>
        )}
        <Text id={`${id}__rule`} size="1" color="gray">
          {listKinds(rule.accept)}, up to {formatBytes(rule.maxBytes)}.
          <span className="hide-on-phone"> You can also drop the file here.</span>
        </Text>
        {sending ? (
          <Flex direction="column" gap="2">
            <Text size="2" id={`${id}__progress-label`}>
              Uploading {sending.name}… {Math.round(sending.fraction * 100)}%
            </Text>
            <Progress
              value={Math.round(sending.fraction * 100)}
              max={100}
              aria-labelledby={`${id}__progress-label`}
            />
            <div>
              <Button
                type="button"
                variant="soft"
                color="gray"
                onClick={() => {
                  sending.abort.abort();
                }}
              >
                Cancel the upload
              </Button>
            </div>
          </Flex>
        ) : (
          <Flex gap="2" align="center" wrap="wrap">
            <input
              ref={input}
              id={id}
              type="file"
              className="visually-hidden upload-input"
              accept={acceptAttribute(rule.accept)}
              disabled={disabled || readonly}
              aria-describedby={described}
              aria-invalid={fieldError || upload.state === 'refused' ? true : undefined}
              onChange={(event) => {
                const file = event.target.files?.[0];
                if (file) void send(file);
              }}
            />
            <Button
              asChild
              variant={current || value ? 'soft' : 'solid'}
              size="2"
              disabled={disabled || readonly}
            >
              <label htmlFor={id} className="upload-button">
                <UploadIcon aria-hidden />
                {current || value ? 'Replace the file' : 'Choose a file'}
              </label>
            </Button>
          </Flex>
        )}
        {upload.state === 'refused' ? (
          <Text id={`${id}__refusal`} size="2" color="red" role="alert">
            <span className="visually-hidden">Error: </span>
            {upload.message}
          </Text>
        ) : null}
        <span role="status" className={upload.state === 'sent' ? 'upload-sent' : 'visually-hidden'}>
          {upload.state === 'sent' ? (
            <Text size="2" color="green" highContrast>
              <CheckCircledIcon aria-hidden /> Uploaded {upload.name}.
            </Text>
          ) : null}
        </span>
      </Flex>
    </Card>
  );
}
