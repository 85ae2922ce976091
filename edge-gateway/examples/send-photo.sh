#!/usr/bin/env sh
# Sends one camera photo and its label to the shardflow HTTP gateway, as a phone app would:
# multipart/form-data with a JSON "metadata" part and the JPEG as its own part (no base64).
#
#   GATEWAY_URL=https://gateway.example GATEWAY_TOKEN=sfgw_... ./send-photo.sh photo.jpg 3 photo-0001
#
# The dataset version must have a bytes tensor for the image and an int64 label, e.g.
#   shardflow dataset create --name photos --version v1 --tensor frame:bytes:image/jpeg --tensor label:int64 --label label
# Retrying with the same sample id (and Idempotency-Key) never adds the photo twice.
set -eu
photo=$1
label=$2
sample_id=$3
dataset=${DATASET:-photos}
version=${VERSION:-v1}
# An int64 label is 8 little-endian bytes, base64: printf writes them, base64 encodes them.
label_b64=$(printf "$(printf '\\%03o' $((label & 255)) $(((label >> 8) & 255)) $(((label >> 16) & 255)) $(((label >> 24) & 255)) 0 0 0 0)" | base64)
metadata='{"sample_id":"'"$sample_id"'","attributes":{"app":"camera-demo"},"tensors":{"frame":{"dtype":"bytes","part":"frame"},"label":{"dtype":"int64","data":"'"$label_b64"'"}}}'

curl --silent --show-error --fail-with-body ${CURL_OPTIONS:-} \
  --retry 5 --retry-connrefused --retry-max-time 120 \
  -X POST "$GATEWAY_URL/v1/datasets/$dataset/versions/$version/samples" \
  -H "Authorization: Bearer $GATEWAY_TOKEN" \
  -H "Idempotency-Key: $sample_id" \
  -F "metadata=$metadata;type=application/json" \
  -F "frame=@$photo;type=image/jpeg"
echo
