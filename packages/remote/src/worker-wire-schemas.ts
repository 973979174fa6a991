import * as v from 'valibot';

// What crosses the wire between a worker and the coordinator's endpoint, as valibot schemas: each answer's
// body, and an upload's claims as its request's headers carry them. Both sides read with these, never cast.

const text = v.string();
const sha256 = v.pipe(text, v.regex(/^[0-9a-f]{64}$/));

/** `GET /info`: the queue and the coordinator's public key, and, for a worker it does not trust, why. */
export const infoAnswerSchema = v.object({ queue: text, key: text, untrusted: v.exactOptional(text) });

/** What `GET /info` answers. */
export type InfoAnswer = v.InferOutput<typeof infoAnswerSchema>;

/** `PUT /uploads/<job>/<run>` taken: the sha256 of the bytes the coordinator keeps. */
export const uploadAnswerSchema = v.object({ ok: v.literal(true), sha256 });

/** What a taken upload is answered with. */
export type UploadAnswer = v.InferOutput<typeof uploadAnswerSchema>;

/**
 * Every answer that is not ok: a code and why; an upload refused because its worker is untrusted says why
 * (`untrusted`), one the coordinator refused itself says why too (`refused`).
 */
export const errorAnswerSchema = v.object({
  code: text,
  message: text,
  untrusted: v.exactOptional(text),
  refused: v.exactOptional(text),
});

/** What an answer that is not ok carries. */
export type ErrorAnswer = v.InferOutput<typeof errorAnswerSchema>;

const WORKER_NAME = 'x-cairn-worker must name the worker';
const UPLOAD_SHA256 = 'x-cairn-sha256 must be the upload sha256 in hex';
const JOURNAL_HEAD = 'x-cairn-journal-head must be "<hash> <length>"';

/**
 * An upload's claims read from its headers (each a string, or absent): the first claim that does not read
 * gives the message the endpoint answers 400 with.
 */
export const claimHeadersSchema = v.object({
  worker: v.pipe(v.string(WORKER_NAME), v.regex(/^[\w.-]{1,64}$/, WORKER_NAME)),
  sha256: v.pipe(v.string(UPLOAD_SHA256), v.regex(/^[0-9a-f]{64}$/, UPLOAD_SHA256)),
  head: v.pipe(
    v.string(JOURNAL_HEAD),
    v.regex(/^(sha256:[0-9a-f]{64}|[0-9a-f]{64}) [0-9]{1,9}$/, JOURNAL_HEAD),
    v.transform((head) => {
      const [hash, length] = head.split(' ');
      return { hash: hash!, length: Number(length) };
    }),
  ),
  signature: v.string('x-cairn-signature is missing'),
});
