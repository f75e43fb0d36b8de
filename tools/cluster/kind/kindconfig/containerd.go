package kindconfig

// cdiPatch turns on CDI in containerd, through which the test driver hands
// devices to containers. Where the key goes, and why this one:
//
//   - kind v0.33.0's base image builds containerd v2.3.4
//     (images/base/Dockerfile, CONTAINERD_VERSION) and ships
//     /etc/containerd/config.toml in the old `version = 2` format, with the
//     CRI settings under plugins."io.containerd.grpc.v1.cri"
//     (images/base/files/etc/containerd/config.toml). kind merges this
//     patch into that file and restarts containerd.
//   - containerd 2.x reads a version 2 file by migrating it: the CRI runtime
//     plugin's configMigration (plugins/cri/runtime/plugin.go) copies each
//     grpc.v1.cri key into plugins."io.containerd.cri.v1.runtime" only where
//     that table does not already set it. A key written directly under
//     io.containerd.cri.v1.runtime therefore wins, whatever the file's
//     version, and it is where containerd 2.x's own config (version 3)
//     keeps enable_cdi.
//   - containerd 2.x already defaults enable_cdi to true
//     (internal/cri/config/config_unix.go, DefaultRuntimeConfig). The patch
//     makes the dependency explicit and keeps it if a node image ever
//     turns it off.
//
// kind's nodeutils (pkg/cluster/nodeutils/util.go, getSnapshotter) reads
// version 2 files through grpc.v1.cri and version 3/4 through
// io.containerd.cri.v1.images, which confirms both layouts are live in
// kind v0.33.0.
const cdiPatch = `[plugins."io.containerd.cri.v1.runtime"]
  enable_cdi = true
`
