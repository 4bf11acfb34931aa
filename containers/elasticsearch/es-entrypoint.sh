#!/bin/bash
# Settings given as environment variables with a dot in their name (discovery.type=single-node,
# http.port=9201), as the official image takes them, become -E options; the JRE is the image's.
set -euo pipefail
export ES_JAVA_HOME="${ES_JAVA_HOME:-$(dirname "$(dirname "$(readlink -f /usr/bin/java)")")}"
options=()
while IFS='=' read -r -d '' name value; do
  if [[ "$name" =~ ^[a-z0-9_]+\.[a-z0-9_.]+$ ]]; then
    options+=("-E${name}=${value}")
  fi
done < <(env -0)
exec /usr/share/elasticsearch/bin/elasticsearch "${options[@]}" "$@"
