package localcp

import (
	"bufio"
	"io"
	"net"
	"strconv"
	"testing"
	"time"
)

// namedServer answers every connection with its name, then echoes lines.
func namedServer(t *testing.T, name string) (int, func()) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	conns := make(chan net.Conn, 10)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns <- c
			go func() {
				_, _ = io.WriteString(c, name+"\n")
				_, _ = io.Copy(c, c)
			}()
		}
	}()
	stop := func() {
		ln.Close()
		for {
			select {
			case c := <-conns:
				c.Close()
			default:
				return
			}
		}
	}
	return ln.Addr().(*net.TCPAddr).Port, stop
}

func greeting(t *testing.T, port int) (net.Conn, string) {
	t.Helper()
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	line, err := bufio.NewReader(c).ReadString('\n')
	if err != nil {
		t.Fatalf("reading the greeting through the proxy: %v", err)
	}
	return c, line
}

func TestProxySwitchesNewConnectionsAndOldOnesEndWithTheirServer(t *testing.T) {
	a, stopA := namedServer(t, "old")
	b, stopB := namedServer(t, "new")
	defer stopB()
	p, err := newAPIProxy()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	p.setBackend(a)
	oldConn, got := greeting(t, p.port())
	if got != "old\n" {
		t.Fatalf("first connection reached %q, want old", got)
	}
	p.setBackend(b)
	newConn, got := greeting(t, p.port())
	defer newConn.Close()
	if got != "new\n" {
		t.Fatalf("a connection after the switch reached %q, want new", got)
	}
	stopA()
	_ = oldConn.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := oldConn.Read(make([]byte, 1)); err == nil {
		t.Error("a connection to the stopped server stayed open through the proxy")
	}
	if _, err := io.WriteString(newConn, "ping\n"); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(newConn)
	if line, _ := r.ReadString('\n'); line != "ping\n" {
		t.Errorf("the new server's connection echoed %q, want ping", line)
	}
}

func TestProxyClosesConnectionsWhenNothingListens(t *testing.T) {
	port, stop := namedServer(t, "x")
	stop()
	p, err := newAPIProxy()
	if err != nil {
		t.Fatal(err)
	}
	defer p.close()
	p.setBackend(port)
	c, err := net.Dial("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.port())))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("read through the proxy to nothing: %v, want EOF", err)
	}
}
