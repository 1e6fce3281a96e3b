"""HTTP-style handlers for Invoice: a request dict in, (status, body) out.

The web layer (not part of this package) maps routes to these functions:

    GET    /invoices            -> list_invoices
    GET    /invoices/<id>       -> get_invoice
    POST   /invoices            -> create_invoice
    PATCH  /invoices/<id>       -> update_invoice
    DELETE /invoices/<id>       -> archive_invoice
"""

from __future__ import annotations

from typing import Any

from ..core.errors import NotFoundError, ValidationError
from ..core.query import Query, page_count
from ..serializers.invoice_csv import to_csv, to_json
from ..services.invoice_service import InvoiceService

Response = tuple[int, dict[str, Any]]


def _error(status: int, message: str) -> Response:
    return status, {"error": message}


def list_invoices(service: InvoiceService, params: dict[str, Any]) -> Response:
    """Query parameters: page, per_page, order_by (comma separated), any field=value."""
    try:
        page = int(params.get("page", 1))
        per_page = int(params.get("per_page", 50))
    except ValueError:
        return _error(400, "page and per_page must be whole numbers")
    order_by = tuple(k for k in str(params.get("order_by", "")).split(",") if k)
    equals = {k: v for k, v in params.items() if k not in ("page", "per_page", "order_by")}
    try:
        query = Query(equals=equals, order_by=order_by, page=page, per_page=per_page)
        records = service.repository.query(query)
    except (ValidationError, AttributeError) as exc:
        return _error(400, str(exc))
    total = len(service.repository.find(**equals)) if equals else len(service.repository)
    return 200, {
        "items": [r.to_dict() for r in records],
        "page": page,
        "pages": page_count(total, per_page),
        "total": total,
    }


def get_invoice(service: InvoiceService, record_id: str) -> Response:
    try:
        return 200, service.repository.get(record_id).to_dict()
    except NotFoundError as exc:
        return _error(404, str(exc))


def create_invoice(service: InvoiceService, body: dict[str, Any]) -> Response:
    try:
        record = service.create(**body)
    except (ValidationError, TypeError) as exc:
        return _error(422, str(exc))
    return 201, record.to_dict()


def update_invoice(
    service: InvoiceService, record_id: str, body: dict[str, Any]
) -> Response:
    try:
        record = service.update(record_id, **body)
    except NotFoundError as exc:
        return _error(404, str(exc))
    except (ValidationError, TypeError) as exc:
        return _error(422, str(exc))
    return 200, record.to_dict()


def export_invoices(service: InvoiceService, params: dict[str, Any]) -> Response:
    """All records as CSV (format=csv, the default) or JSON (format=json)."""
    fmt = params.get("format", "csv")
    records = service.repository.all()
    if params.get("active_only", "yes") == "yes":
        records = [r for r in records if r.is_active]
    if fmt == "csv":
        return 200, {"content_type": "text/csv", "body": to_csv(records)}
    if fmt == "json":
        return 200, {"content_type": "application/json", "body": to_json(records)}
    return _error(400, f"unknown export format {fmt!r} (use csv or json)")


def archive_invoice(service: InvoiceService, record_id: str) -> Response:
    try:
        service.archive(record_id)
    except NotFoundError as exc:
        return _error(404, str(exc))
    return 204, {}
