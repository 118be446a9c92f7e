"""What the table and the club share and that depends on neither: security (origins, seat
cookies). Their templates share `templates/shared/base.html`."""
