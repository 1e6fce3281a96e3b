import unittest

from fleetops.models.customer import Customer
from fleetops.models.invoice import Invoice
from fleetops.models.part import Part
from fleetops.models.shift import Shift
from fleetops.models.stop import Stop
from fleetops.models.tire import Tire
from fleetops.models.vehicle import Vehicle
from fleetops.services import integrity_service as integrity
from fleetops.store.customer_store import CustomerStore
from fleetops.store.invoice_store import InvoiceStore
from fleetops.store.part_store import PartStore
from fleetops.store.shift_store import ShiftStore
from fleetops.store.stop_store import StopStore
from fleetops.store.supplier_store import SupplierStore
from fleetops.store.tire_store import TireStore
from fleetops.store.vehicle_store import VehicleStore


def customers():
    return CustomerStore([Customer("CUS-0001", "Acme", "retail", "Lyon", 500.0)])


def invoices(*amounts_paid):
    return InvoiceStore(
        Invoice(f"INV-{n:04d}", "CUS-0001", "2024-03-01", amount, paid)
        for n, (amount, paid) in enumerate(amounts_paid, start=1)
    )


def stops(*numbers):
    return StopStore(
        Stop(f"STP-{n:04d}", "RTE-0001", seq, "CUS-0001", 30) for n, seq in enumerate(numbers, 1)
    )


class TestIntegrity(unittest.TestCase):
    def test_dangling_references_only_for_given_kinds(self):
        tires = TireStore([
            Tire("TIR-0001", "VEH-0001", "FL", "2024-01-02", 8.5),
            Tire("TIR-0002", "VEH-0009", "FR", "2024-01-02", 8.5),
        ])
        vehicles = VehicleStore([Vehicle("VEH-0001", "AB-1", "DAF", 2020, "DEP-0001", "km", 1.0, True)])
        self.assertEqual(integrity.dangling_references({"tire": tires}), [])
        problems = integrity.dangling_references({"tire": tires, "vehicle": vehicles})
        self.assertEqual(problems, ["tire TIR-0002: no vehicle VEH-0009"])

    def test_stop_sequence_gaps(self):
        self.assertEqual(integrity.stop_sequence_gaps(stops(2, 1, 3)), [])
        problems = integrity.stop_sequence_gaps(stops(1, 3, 3))
        self.assertEqual(len(problems), 1)
        self.assertTrue(problems[0].startswith("route RTE-0001: stops numbered [1, 3, 3]"))

    def test_over_credit_limit(self):
        ok = invoices((300.25, False), (400.5, True))
        self.assertEqual(integrity.over_credit_limit(ok, customers()), [])
        over = invoices((300.25, False), (250.5, False))
        problems = integrity.over_credit_limit(over, customers())
        self.assertEqual(
            problems, ["customer CUS-0001: unpaid 550.75 is over the credit limit 500.00"]
        )

    def test_long_working_days(self):
        shifts = ShiftStore([
            Shift("SHF-0001", "DRV-0001", "2024-03-01", 8.0, False),
            Shift("SHF-0002", "DRV-0001", "2024-03-01", 5.5, True),
            Shift("SHF-0003", "DRV-0002", "2024-03-01", 12.0, False),
        ])
        problems = integrity.long_working_days(shifts)
        self.assertEqual(problems, ["driver DRV-0001: 13.5 hours on 2024-03-01 (at most 12)"])
        self.assertEqual(integrity.long_working_days(shifts, max_hours=14), [])

    def test_low_stock_and_check_all(self):
        parts = PartStore([
            Part("PRT-0002", "Filter", "SUP-0001", 12.5, 1, "engine"),
            Part("PRT-0001", "Pad", "SUP-0001", 20.25, 9, "brakes"),
        ])
        self.assertEqual(integrity.low_stock(parts), ["part PRT-0002: 1 in stock (reorder from SUP-0001)"])
        stores = {"part": parts, "stop": stops(1, 2), "customer": customers(),
                  "invoice": invoices((10.5, False))}
        self.assertEqual(integrity.check_all(stores), integrity.low_stock(parts))
        self.assertEqual(len(integrity.check_all({"part": parts, "supplier": SupplierStore()})), 3)


if __name__ == "__main__":
    unittest.main()
