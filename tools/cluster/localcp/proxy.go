package localcp

import (
	"fmt"
	"io"
	"net"
	"strconv"
	"sync"
)

// apiProxy is the API server's address as every client knows it: a loopback
// port that forwards each connection, TLS and all, to the kube-apiserver
// running now. A restart then starts the new API server on a port of its
// own while the old one still serves, switches the proxy once the new one
// is ready, and only then stops the old one: clients see their connections
// cut and reconnect at once, instead of backing off through an outage (up
// to 40 s of relisting, measured, which once made every restart restart the
// scheduler and the controller manager too).
type apiProxy struct {
	ln net.Listener

	mu      sync.Mutex
	backend int
	closed  bool
}

func newAPIProxy() (*apiProxy, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("local: listening for the API server's address: %w", err)
	}
	p := &apiProxy{ln: ln}
	go p.serve()
	return p, nil
}

func (p *apiProxy) port() int { return p.ln.Addr().(*net.TCPAddr).Port }

// setBackend sends new connections to the API server on port; connections
// already open stay with the server they reached.
func (p *apiProxy) setBackend(port int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.backend = port
}

func (p *apiProxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		port, closed := p.backend, p.closed
		p.mu.Unlock()
		if closed {
			c.Close()
			return
		}
		go forward(c, port)
	}
}

// forward copies both ways until either side ends, then closes both: an API
// server that stops cuts its clients' connections as if they were its own.
func forward(client net.Conn, port int) {
	defer client.Close()
	if port == 0 {
		return
	}
	server, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		// Nothing listens: the client sees its connection closed, which it
		// takes for an API server that is down, as it is.
		return
	}
	defer server.Close()
	done := make(chan struct{}, 2)
	go func() { _, _ = io.Copy(server, client); done <- struct{}{} }()
	go func() { _, _ = io.Copy(client, server); done <- struct{}{} }()
	<-done
}

// close stops accepting; open connections end with their API server.
func (p *apiProxy) close() {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.ln.Close()
}
