package deploy

import (
	"net"
	"path"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/draconform/draconform/drivers/internal/driver"
)

const (
	name       = "draconform-driver"
	configName = "draconform-driver-config"
	configDir  = "/etc/draconform-driver"
	configFile = "config.yaml"

	// The CDI specs' path in the container; on the host it is Options.CDIDir,
	// where the container runtime looks for them.
	cdiDir = "/var/run/cdi"

	// configHashAnnotation changes with the config, so that applying a new
	// config restarts the driver pods.
	configHashAnnotation = "draconform.dev/config-sha256"
)

// privileged exempts the driver's namespace from a cluster-wide Pod Security
// default: a DRA driver is a node agent (host paths for its plugin socket
// and CDI specs, a privileged container), which no stricter level admits.
// The suite's own namespaces need no such label.
func privileged(m metav1.ObjectMeta) metav1.ObjectMeta {
	m.Labels = map[string]string{"app.kubernetes.io/name": m.Labels["app.kubernetes.io/name"], "pod-security.kubernetes.io/enforce": "privileged"}
	m.Annotations = map[string]string{"draconform.dev/pod-security-reason": "a DRA driver is a node agent: host paths for its plugin socket and CDI specs, and a privileged container"}
	return m
}

func objects(o Options, configYAML, configHash string) []runtime.Object {
	labels := map[string]string{"app.kubernetes.io/name": name}
	meta := func(namespace, objName string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Name: objName, Namespace: namespace, Labels: labels}
	}
	return []runtime.Object{
		&corev1.Namespace{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "Namespace"},
			ObjectMeta: privileged(meta("", o.Namespace)),
		},
		&corev1.ServiceAccount{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ServiceAccount"},
			ObjectMeta: meta(o.Namespace, name),
		},
		&rbacv1.ClusterRole{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRole"},
			ObjectMeta: meta("", name),
			Rules: []rbacv1.PolicyRule{
				// kubeletplugin reads each claim it is asked to prepare.
				{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceclaims"}, Verbs: []string{"get"}},
				// The ResourceSlice controller watches the node's slices and
				// creates, updates and deletes them.
				{APIGroups: []string{"resource.k8s.io"}, Resources: []string{"resourceslices"}, Verbs: []string{"list", "watch", "create", "update", "delete"}},
				// It reads the node once for the slices' owner reference.
				{APIGroups: []string{""}, Resources: []string{"nodes"}, Verbs: []string{"get"}},
			},
		},
		&rbacv1.ClusterRoleBinding{
			TypeMeta:   metav1.TypeMeta{APIVersion: "rbac.authorization.k8s.io/v1", Kind: "ClusterRoleBinding"},
			ObjectMeta: meta("", name),
			Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Name: name, Namespace: o.Namespace}},
			RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: name},
		},
		&corev1.ConfigMap{
			TypeMeta:   metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
			ObjectMeta: meta(o.Namespace, configName),
			Data:       map[string]string{configFile: configYAML},
		},
		daemonSet(o, labels, configHash),
	}
}

func daemonSet(o Options, labels map[string]string, configHash string) *appsv1.DaemonSet {
	// The driver's sockets must be where the kubelet looks for them, and at
	// the same path in the container, so the socket path it registers is
	// valid for the kubelet.
	pluginDir := path.Join(o.KubeletDir, "plugins", driver.DriverName)
	registryDir := path.Join(o.KubeletDir, "plugins_registry")
	env, hostNetwork := driverEnv(o)
	return &appsv1.DaemonSet{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apps/v1", Kind: "DaemonSet"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: o.Namespace, Labels: labels},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{
					Labels:      labels,
					Annotations: map[string]string{configHashAnnotation: configHash},
				},
				Spec: corev1.PodSpec{
					ServiceAccountName: name,
					HostNetwork:        hostNetwork,
					NodeSelector:       o.NodeSelector,
					// A node agent: run on every node, control plane included
					// (a one-node kind cluster has only that).
					Tolerations: []corev1.Toleration{{Operator: corev1.TolerationOpExists}},
					Containers:  []corev1.Container{driverContainer(o.Image, env, pluginDir, registryDir)},
					Volumes:     driverVolumes(o.CDIDir, pluginDir, registryDir),
				},
			},
		},
	}
}

// driverEnv is the driver container's environment: its node's name, and
// where the API server is when o names one, in which case the pod runs in
// the host's network (hostNetwork) to reach it.
func driverEnv(o Options) (env []corev1.EnvVar, hostNetwork bool) {
	env = []corev1.EnvVar{{
		Name: "NODE_NAME",
		ValueFrom: &corev1.EnvVarSource{
			FieldRef: &corev1.ObjectFieldSelector{FieldPath: "spec.nodeName"},
		},
	}}
	if o.APIServer == "" {
		return env, false
	}
	host, port, _ := net.SplitHostPort(o.APIServer)
	// The kubelet sets these to the kubernetes Service; a container's own
	// env wins over them, and client-go's in-cluster config reads them.
	env = append(env,
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_HOST", Value: host},
		corev1.EnvVar{Name: "KUBERNETES_SERVICE_PORT", Value: port})
	return env, true
}

// driverContainer runs the driver with its config, CDI, plugin and
// registration folders mounted.
func driverContainer(image string, env []corev1.EnvVar, pluginDir, registryDir string) corev1.Container {
	no, yes := false, true
	return corev1.Container{
		Name:            "driver",
		Image:           image,
		ImagePullPolicy: corev1.PullIfNotPresent,
		Command:         []string{"/draconform-driver"},
		Args: []string{
			"--config=" + configDir + "/" + configFile,
			"--cdi-dir=" + cdiDir,
			"--plugin-dir=" + pluginDir,
			"--registrar-dir=" + registryDir,
		},
		Env: env,
		// Root (the image has no other user) may write the root-owned host
		// directories without privileges.
		SecurityContext: &corev1.SecurityContext{
			AllowPrivilegeEscalation: &no,
			ReadOnlyRootFilesystem:   &yes,
		},
		VolumeMounts: []corev1.VolumeMount{
			{Name: "plugin", MountPath: pluginDir},
			{Name: "registry", MountPath: registryDir},
			{Name: "cdi", MountPath: cdiDir},
			{Name: "config", MountPath: configDir, ReadOnly: true},
		},
	}
}

// driverVolumes: the node's folders the driver writes to, and its config.
func driverVolumes(hostCDIDir, pluginDir, registryDir string) []corev1.Volume {
	return []corev1.Volume{
		hostPathVolume("plugin", pluginDir, corev1.HostPathDirectoryOrCreate),
		// The kubelet creates its registry; if it is missing, there is no
		// kubelet to register with.
		hostPathVolume("registry", registryDir, corev1.HostPathDirectory),
		hostPathVolume("cdi", hostCDIDir, corev1.HostPathDirectoryOrCreate),
		{Name: "config", VolumeSource: corev1.VolumeSource{
			ConfigMap: &corev1.ConfigMapVolumeSource{LocalObjectReference: corev1.LocalObjectReference{Name: configName}},
		}},
	}
}

func hostPathVolume(volume, dir string, kind corev1.HostPathType) corev1.Volume {
	return corev1.Volume{Name: volume, VolumeSource: corev1.VolumeSource{
		HostPath: &corev1.HostPathVolumeSource{Path: dir, Type: &kind},
	}}
}
