#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Kubernetes manifests of docs/KUBERNETES.md (dist/kubernetes/) are valid
# against the Kubernetes API schemas (tools/k8s-validate), the tierd.conf
# their ConfigMap carries passes `tierd --check`, and the validator rejects
# a manifest with a wrongly typed field (so it can fail). Prints TAP.
set -uo pipefail
cd "$(dirname "$0")/../.."
files=(dist/kubernetes/*.yaml)
echo "1..$((${#files[@]} + 2))"
rc=0 i=0
for f in "${files[@]}"; do
	i=$((i + 1))
	if out=$(tools/k8s-validate "$f" 2>&1); then
		echo "ok $i - $f: $(tr '\n' ';' <<<"$out" | sed 's/;$//')"
	else
		sed 's/^/# /' <<<"$out"
		echo "not ok $i - $f does not validate"
		rc=1
	fi
done
i=$((i + 1))
d=$(mktemp -d)
python3 - dist/kubernetes/tierd-daemonset.yaml "$d/tierd.conf" <<'PY'
import sys, yaml
for doc in yaml.safe_load_all(open(sys.argv[1])):
    if doc and doc.get("kind") == "ConfigMap":
        open(sys.argv[2], "w").write(doc["data"]["tierd.conf"])
PY
make --no-print-directory -s user >/dev/null 2>&1
if out=$(build/user/tierd --check -c "$d/tierd.conf" 2>&1); then
	echo "ok $i - the ConfigMap's tierd.conf passes tierd --check"
else
	sed 's/^/# /' <<<"$out"
	echo "not ok $i - the ConfigMap's tierd.conf fails tierd --check"
	rc=1
fi
i=$((i + 1))
sed 's/hostNetwork: true/hostNetwork: "yes"/' dist/kubernetes/tierd-daemonset.yaml >"$d/bad.yaml"
if out=$(tools/k8s-validate "$d/bad.yaml" 2>&1); then
	echo "not ok $i - a DaemonSet with hostNetwork: \"yes\" validated"
	rc=1
else
	echo "ok $i - a DaemonSet with hostNetwork: \"yes\" is rejected: $(grep -m1 'must be' <<<"$out")"
fi
rm -rf "$d"
exit $rc
