package bundle

import (
	"path/filepath"
	"strings"
	"testing"
)

// The product and the driver profile must name one driver.
func TestLoadProduct(t *testing.T) {
	profiles := filepath.Join("..", "..", "..", "suites", "profiles")
	product := filepath.Join(profiles, "dra-example-driver.product.yaml")
	p, err := LoadProduct(product, "")
	if err != nil || p.Driver != "gpu.example.com" {
		t.Fatalf("without a profile: %+v, %v", p, err)
	}
	if _, err := LoadProduct(product, filepath.Join(profiles, "dra-example-driver.yaml")); err != nil {
		t.Errorf("the profile of the same driver: %v", err)
	}
	_, err = LoadProduct(product, filepath.Join(profiles, "testdriver.yaml"))
	if err == nil || !strings.Contains(err.Error(), "the product's driver is gpu.example.com, the driver profile's testdriver.draconform.dev") {
		t.Errorf("another driver's profile: %v", err)
	}
	if _, err := LoadProduct(filepath.Join(profiles, "missing.yaml"), ""); err == nil {
		t.Error("a missing product file loaded")
	}
}
