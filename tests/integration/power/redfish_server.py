"""A node's BMC as far as power goes: a Redfish service over HTTPS (basic authentication) serving the
DMTF Power schema (Power.v1_7_1: /redfish/v1/Chassis/1/Power, PowerControl[0].PowerConsumedWatts), the
resource the harness's Redfish reader reads. sushy-tools' emulator serves no Power resource, so the tests
use this one. Prints "ready PORT" once it listens.
Usage: redfish_server.py CERT KEY USERNAME PASSWORD WATTS"""
import base64
import json
import ssl
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

cert, key, user, password, watts = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], float(sys.argv[5])
AUTH = "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()
CHASSIS = "/redfish/v1/Chassis/1"
RESOURCES = {
    "/redfish/v1": {"@odata.type": "#ServiceRoot.v1_15_0.ServiceRoot", "@odata.id": "/redfish/v1", "Id": "RootService",
                    "Name": "Root Service", "RedfishVersion": "1.17.0", "Chassis": {"@odata.id": "/redfish/v1/Chassis"}},
    "/redfish/v1/Chassis": {"@odata.type": "#ChassisCollection.ChassisCollection", "@odata.id": "/redfish/v1/Chassis",
                            "Name": "Chassis Collection", "Members@odata.count": 1, "Members": [{"@odata.id": CHASSIS}]},
    CHASSIS: {"@odata.type": "#Chassis.v1_23_0.Chassis", "@odata.id": CHASSIS, "Id": "1", "Name": "Computer System Chassis",
              "ChassisType": "RackMount", "Power": {"@odata.id": CHASSIS + "/Power"}},
    CHASSIS + "/Power": {
        "@odata.type": "#Power.v1_7_1.Power", "@odata.id": CHASSIS + "/Power", "Id": "Power", "Name": "Power",
        "PowerControl": [{"@odata.id": CHASSIS + "/Power#/PowerControl/0", "MemberId": "0", "Name": "System Power Control",
                          "PowerConsumedWatts": watts, "PowerCapacityWatts": 3000,
                          "PowerMetrics": {"IntervalInMin": 1, "MinConsumedWatts": watts, "MaxConsumedWatts": watts,
                                           "AverageConsumedWatts": watts},
                          "Status": {"State": "Enabled", "Health": "OK"}}]},
}


class Handler(BaseHTTPRequestHandler):
    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.headers.get("Authorization") != AUTH:
            self.send_response(401)
            self.send_header("WWW-Authenticate", 'Basic realm="redfish"')
            self.end_headers()
            return
        doc = RESOURCES.get(self.path.rstrip("/"))
        body = json.dumps(doc if doc else {"error": {"code": "Base.1.0.ResourceMissingAtURI"}}).encode()
        self.send_response(200 if doc else 404)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
ctx.load_cert_chain(cert, key)
server.socket = ctx.wrap_socket(server.socket, server_side=True)
print(f"ready {server.server_address[1]}", flush=True)
server.serve_forever()
