#!/bin/bash
# Runs once in the node image's build container, after the image's files
# are copied in: the RUN steps of kind's images/base/Dockerfile (v0.33.0)
# that shape the node, done here because no registry serves kind's base.
set -euo pipefail
chmod 755 /kind /kind/bin
# Only what a node needs starts under systemd, as in kind's base image.
find /lib/systemd/system/sysinit.target.wants/ -name "systemd-tmpfiles-setup.service" -delete
rm -f /lib/systemd/system/multi-user.target.wants/* \
      /etc/systemd/system/*.wants/* \
      /lib/systemd/system/local-fs.target.wants/* \
      /lib/systemd/system/sockets.target.wants/*udev* \
      /lib/systemd/system/sockets.target.wants/*initctl* \
      /lib/systemd/system/basic.target.wants/*
echo "ReadKMsg=no" >> /etc/systemd/journald.conf
ln -sf /usr/lib/systemd/systemd /sbin/init
systemctl enable kubelet.service containerd.service undo-mount-hacks.service draconform-podnet.service
systemctl mask systemd-binfmt.service
mkdir -p /etc/kubernetes/manifests /etc/cni/net.d
# The spec containerd starts every container from: kind's recipe, which
# adds the hook that gives each node its own product_uuid.
ctr oci spec \
  | jq '.hooks.createContainer += [{"path": "/kind/bin/mount-product-files.sh"}] | del(.process.rlimits)' \
  > /etc/containerd/cri-base.json
# The Debian package cache is not part of a node.
apt-get clean
rm -rf /var/lib/apt/lists/* /var/log/*.log /var/cache/debconf/*-old
