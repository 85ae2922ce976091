// Sends samples to the shardflow HTTP gateway with fetch: what a React Native or web app does.
// Node 20+ runs it as is:  GATEWAY_URL=... GATEWAY_TOKEN=sfgw_... node send-samples.mjs photo.jpg
//
// Two ways, both to a dataset version with `frame:bytes:image/jpeg` and `label:int64`:
//  - sendPhoto: multipart/form-data, the JPEG as its own part (in React Native, append
//    {uri, type: "image/jpeg", name} instead of a Blob);
//  - sendSamples: JSON, tensors as base64 little-endian bytes, several samples per request.
// Both retry on 408/429/503 after Retry-After with the same sample ids and Idempotency-Key, so a
// retry after a timeout never adds a sample twice.

const base = process.env.GATEWAY_URL;
const token = process.env.GATEWAY_TOKEN;
const dataset = process.env.DATASET ?? "photos";
const version = process.env.VERSION ?? "v1";
const url = `${base}/v1/datasets/${dataset}/versions/${version}/samples`;

/** An int64 label as base64 of its 8 little-endian bytes. */
function int64Base64(value) {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigInt64(0, BigInt(value), true);
  return bytesToBase64(bytes);
}

function bytesToBase64(bytes) {
  let text = "";
  for (const b of bytes) text += String.fromCharCode(b);
  return btoa(text);
}

/** POSTs until the answer is final: 2xx, or a 4xx other than 408/409/429. Returns the parsed answer. */
async function post(body, headers, idempotencyKey) {
  for (let attempt = 1; ; attempt++) {
    let response;
    try {
      response = await fetch(url, {
        method: "POST",
        body,
        headers: { Authorization: `Bearer ${token}`, "Idempotency-Key": idempotencyKey, ...headers },
      });
    } catch (networkError) {
      if (attempt >= 5) throw networkError;
      await sleep(1000 * attempt);
      continue;
    }
    const answer = await response.json();
    const retryable = [408, 409, 429, 503].includes(response.status);
    if (!retryable || attempt >= 5) return { status: response.status, answer };
    await sleep(1000 * Number(response.headers.get("Retry-After") ?? attempt));
  }
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

export async function sendPhoto(jpegBytes, label, sampleId) {
  const form = new FormData();
  form.append("metadata", JSON.stringify({
    sample_id: sampleId,
    attributes: { app: "js-demo" },
    tensors: { frame: { dtype: "bytes", part: "frame" }, label: { dtype: "int64", data: int64Base64(label) } },
  }));
  form.append("frame", new Blob([jpegBytes], { type: "image/jpeg" }), `${sampleId}.jpg`);
  return post(form, {}, sampleId);
}

export async function sendSamples(photos) {
  const samples = photos.map(({ jpegBytes, label, sampleId }) => ({
    sample_id: sampleId,
    produced_at: new Date().toISOString(),
    tensors: {
      frame: { dtype: "bytes", data: bytesToBase64(jpegBytes) },
      label: { dtype: "int64", data: int64Base64(label) },
    },
  }));
  const key = samples.map((s) => s.sample_id).join(",");
  return post(JSON.stringify({ samples }), { "Content-Type": "application/json" }, key);
}

// Run as a script: one photo as multipart, then two as a JSON batch; exits non-zero unless all 2xx.
if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split("/").pop())) {
  const { readFile } = await import("node:fs/promises");
  const jpeg = await readFile(process.argv[2]);
  const prefix = process.argv[3] ?? `js-${Date.now()}`;
  const one = await sendPhoto(jpeg, 3, `${prefix}-0`);
  console.log(JSON.stringify(one.answer));
  const batch = await sendSamples([{ jpegBytes: jpeg, label: 4, sampleId: `${prefix}-1` }, { jpegBytes: jpeg, label: 5, sampleId: `${prefix}-2` }]);
  console.log(JSON.stringify(batch.answer));
  process.exit(one.status === 200 && batch.status === 200 ? 0 : 1);
}
