package loader

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"regexp"
	"slices"
	"strings"

	"gopkg.in/yaml.v3"
	apiresource "k8s.io/apimachinery/pkg/api/resource"

	"github.com/draconform/draconform/tools/lang/spec"
)

// LoadProduct reads a Product file as strictly as the specs: unknown keys,
// missing fields and a wrong kind are reported with file:line.
func LoadProduct(path string) (*spec.Product, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("product file: %w", err)
	}
	return productOf(path, data)
}

// ParseProduct reads a Product file's contents strictly; name is the file's
// name in its errors.
func ParseProduct(name string, data []byte) (*spec.Product, error) { return productOf(name, data) }

func productOf(path string, data []byte) (*spec.Product, error) {
	p := &spec.Product{}
	probs, n := loadDoc(path, data, "Product", p)
	if n != nil {
		required(&probs, path, n.Line, "product", map[string]string{
			"vendor": p.Vendor, "name": p.Name, "version": p.Version, "driver": p.Driver, "image": p.Image, "contact": p.Contact})
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return p, nil
}

// LoadProfile reads a DriverProfile file strictly.
func LoadProfile(path string) (*spec.DriverProfile, error) {
	data, err := readFile(path)
	if err != nil {
		return nil, fmt.Errorf("driver profile: %w", err)
	}
	return profileOf(path, data)
}

// LoadProfileFS reads a DriverProfile from fsys (the built-in ones).
func LoadProfileFS(fsys fs.FS, name string) (*spec.DriverProfile, error) {
	data, err := readFS(fsys, name)
	if err != nil {
		return nil, fmt.Errorf("driver profile: %w", err)
	}
	return profileOf(name, data)
}

var quantity = regexp.MustCompile(`^[0-9]+(\.[0-9]+)?([KMGTPE]i?|[mkMGTPE]|e[0-9]+)?$`)

func profileOf(name string, data []byte) (*spec.DriverProfile, error) {
	p := &spec.DriverProfile{}
	probs, n := loadDoc(name, data, "DriverProfile", p)
	if n != nil {
		required(&probs, name, n.Line, "driver profile", map[string]string{
			"name": p.Name, "driver": p.Driver, "workload.image": p.Workload.Image})
		if p.Name != "" && !dnsLabel.MatchString(p.Name) {
			probs.add(name, n.Line, "a DNS label", "driver profile name %q is not a DNS label", p.Name)
		}
		shareForm(&probs, name, n.Line, p)
		if len(p.Workload.Command) == 0 {
			probs.add(name, n.Line, "a command that prints its environment and keeps running, e.g. [sh, -c, 'env; sleep 3600']", "driver profile: workload.command is missing")
		}
		if len(p.Env) == 0 {
			probs.add(name, n.Line, "what a running container must see of its share, e.g. NVIDIA_VISIBLE_DEVICES: <any>", "driver profile: env is missing")
		}
		envCarriesShare(&probs, name, n.Line, p)
	}
	if len(probs) > 0 {
		return nil, probs
	}
	return p, nil
}

// envCarriesShare wants one variable of env whose value is an amount a
// share requests: a driver that prepares the whole device for a share
// passes every check that only names variables (<any>), and only the
// amount the container sees tells the share from the device.
func envCarriesShare(probs *Problems, name string, line int, p *spec.DriverProfile) {
	if len(p.Env) == 0 {
		return
	}
	amounts := p.ShareRequests()
	for _, v := range p.Env {
		for _, a := range amounts {
			if v == a || sameQuantity(v, a) {
				return
			}
		}
	}
	var want []string
	for _, k := range slices.Sorted(maps.Keys(amounts)) {
		want = append(want, k+" "+amounts[k])
	}
	probs.add(name, line, "name the variable in which the container sees its share's amount, e.g. GPU_DEVICE_<deviceNumber>_MEMORY: 40Gi",
		"driver profile: no variable of env carries the share's amount (%s), so a driver that prepares the whole device would pass", strings.Join(want, ", "))
}

// sameQuantity compares two amounts as Kubernetes quantities (1Gi and
// 1024Mi are one amount).
func sameQuantity(a, b string) bool {
	qa, err := apiresource.ParseQuantity(a)
	if err != nil {
		return false
	}
	qb, err := apiresource.ParseQuantity(b)
	return err == nil && qa.Cmp(qb) == 0
}

// shareForm checks that a profile says what a share requests in one of its
// two forms: capacity, share and overCapacity for one capacity, or
// requests and overRequests for several; mixed, which would win is a guess.
func shareForm(probs *Problems, name string, line int, p *spec.DriverProfile) {
	single := p.Capacity != "" || p.Share != "" || p.OverCapacity != ""
	several := len(p.Requests) > 0 || len(p.OverRequests) > 0
	switch {
	case single && several:
		probs.add(name, line, "capacity, share and overCapacity for one capacity, or requests and overRequests for several", "driver profile: give one form of the share, not both")
		return
	case several:
		if len(p.Requests) == 0 || len(p.OverRequests) == 0 {
			probs.add(name, line, "requests: what one share takes of each capacity; overRequests: more than any one device has", "driver profile: requests and overRequests go together")
		}
		for _, m := range []struct {
			field string
			q     map[string]string
		}{{"requests", p.Requests}, {"overRequests", p.OverRequests}} {
			for _, k := range slices.Sorted(maps.Keys(m.q)) {
				if k == "" {
					probs.add(name, line, "a capacity name as the devices publish it", "driver profile %s: an empty capacity name", m.field)
				}
				if !quantity.MatchString(m.q[k]) {
					probs.add(name, line, "a Kubernetes quantity, e.g. 10Gi or 1", "driver profile %s.%s %q is not a quantity", m.field, k, m.q[k])
				}
			}
		}
	default:
		required(probs, name, line, "driver profile", map[string]string{"capacity": p.Capacity, "share": p.Share, "overCapacity": p.OverCapacity})
		for field, q := range map[string]string{"share": p.Share, "overCapacity": p.OverCapacity} {
			if q != "" && !quantity.MatchString(q) {
				probs.add(name, line, "a Kubernetes quantity, e.g. 10Gi or 1", "driver profile %s %q is not a quantity", field, q)
			}
		}
	}
}

// loadDoc decodes the one document of data into v strictly, checking its
// apiVersion and kind; it returns the problems and the document's node
// (nil when data holds no document that can be decoded).
func loadDoc(name string, data []byte, kind string, v any) (Problems, *yaml.Node) {
	var probs Problems
	want := "a YAML document with apiVersion: " + spec.APIVersion + " and kind: " + kind
	if len(data) > MaxFileSize {
		probs.add(name, 1, "", "%s", tooLarge)
		return probs, nil
	}
	if enc := utf16(data); enc != "" {
		probs.add(name, 1, "save it as UTF-8", "not a %s file: %s", kind, enc)
		return probs, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	err := dec.Decode(&doc)
	switch {
	case errors.Is(err, io.EOF) || (err == nil && (len(doc.Content) == 0 || emptyDoc(doc.Content[0]))):
		probs.add(name, 1, want, "not a %s file: no YAML document", kind)
		return probs, nil
	case err != nil:
		line, msg := yamlError(data, err)
		probs.add(name, line, want, "not a %s file: not valid YAML: %s", kind, msg)
		return probs, nil
	}
	n := doc.Content[0]
	if !checkAliases(name, n, &probs) {
		return probs, nil
	}
	decoder{file: name, errs: &probs}.decode(n, reflectValue(v))
	var head struct {
		APIVersion string `yaml:"apiVersion"`
		Kind       string `yaml:"kind"`
	}
	_ = n.Decode(&head)
	if head.APIVersion != spec.APIVersion || head.Kind != kind {
		probs.add(name, n.Line, "apiVersion: "+spec.APIVersion+" and kind: "+kind, "apiVersion %q, kind %q", head.APIVersion, head.Kind)
	}
	// The file holds one document: a second one is not read, so it is
	// a mistake (an empty one, a trailing ---, is not).
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		line, msg := yamlError(data, err)
		probs.add(name, line, "", "not valid YAML: %s", msg)
	case len(next.Content) > 0 && !emptyDoc(next.Content[0]):
		probs.add(name, next.Content[0].Line, "a "+kind+" file holds one document", "a second YAML document")
	}
	clampLines(probs, name, lastLine(data))
	return probs, n
}

func required(probs *Problems, file string, line int, what string, fields map[string]string) {
	for _, k := range slices.Sorted(maps.Keys(fields)) {
		if fields[k] == "" {
			probs.add(file, line, "a reader needs it", "%s: %s is missing", what, k)
		}
	}
}
