import { LoginView } from "@/components/auth/login-view";

export default function LoginPage() {
  return <LoginView />;
}
