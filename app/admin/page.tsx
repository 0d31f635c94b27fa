import { AdminView } from "@/components/admin/admin-view";

export default function AdminPage() {
  return <AdminView />;
}
