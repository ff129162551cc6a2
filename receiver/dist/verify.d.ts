/** True when `header` (X-Service-Signature) is the signature of `rawBody` under `secret`. */
export declare function verifySignature(rawBody: string | Uint8Array, header: string | null | undefined, secret: string): boolean;
